/** The control surface for the market: how orders settle or fail, rules, automation options, prices and a backdated history. */
import { cancelRule, findRule, fireRule, setAutomationOptions, systemPauseRule } from "./automations";
import { fillHistory } from "./history";
import { settleAllOrders } from "./orders";
import { bookRateSun, DURATIONS, rateKey, rateSun } from "./price-book";
import type { Duration, FailureMode, FireResult, PriceRateView, Resource, SandboxControl } from "./types";
import type { World } from "./records";
import { firingView, orderView, ruleView } from "./views";
import { requireAccount } from "./world";
import { badArgument, CONTROL_FORMAT as format, oneOf, stringArg } from "./control-args";

type OrderControl = Pick<
  SandboxControl,
  "failNextOrder" | "settleNow" | "setSettleDelay" | "getSettleDelay" | "markUnactivated" | "markActivated"
>;
type RuleControl = Pick<SandboxControl, "fireRule" | "systemPauseRule" | "cancelRule">;
type MarketControl = Pick<SandboxControl, "setAutomationOptions" | "setPrice" | "getPrices" | "fillHistory">;

/** Forces how orders go: the next one fails, pending ones settle now or after a delay, an address is (not) activated. */
export function orderControl(world: World): OrderControl {
  return {
    failNextOrder({ accountId, mode }) {
      requireAccount(world, accountId).failNext = oneOf<FailureMode>(mode, ["sync", "async"], "mode");
    },

    settleNow(args = {}) {
      if (args.accountId !== undefined) requireAccount(world, args.accountId);
      return settleAllOrders(world, args.accountId).map((order) => orderView(order, format));
    },

    setSettleDelay({ ms }) {
      if (ms !== null && (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0))
        throw badArgument("ms must be a non-negative number of milliseconds, or null (orders wait for settleNow)");
      world.settleDelayMs = ms;
      return { settleDelayMs: world.settleDelayMs };
    },

    getSettleDelay() {
      return { settleDelayMs: world.settleDelayMs };
    },

    markUnactivated({ address }) {
      world.unactivatedAddresses.add(stringArg(address, "address"));
    },

    markActivated({ address }) {
      world.unactivatedAddresses.delete(stringArg(address, "address"));
    },
  };
}

/** Fires, pauses (as the system) and cancels a rule. */
export function ruleControl(world: World): RuleControl {
  return {
    fireRule({ ruleId }): FireResult {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      const outcome = fireRule(world, rule);
      return outcome.fired
        ? { fired: true, firing: firingView(outcome.firing, format), rule: ruleView(rule, format) }
        : { fired: false, reason: outcome.reason, rule: ruleView(rule, format) };
    },

    systemPauseRule({ ruleId }) {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      systemPauseRule(world, rule);
      return ruleView(rule, format);
    },

    cancelRule({ ruleId }) {
      const rule = findRule(world, null, stringArg(ruleId, "ruleId"));
      cancelRule(world, rule);
      return ruleView(rule, format);
    },
  };
}

/** The provider rate of one resource for one duration, as setPrice left it. */
function rateView(world: World, resource: Resource, duration: Duration): PriceRateView {
  return {
    resource,
    duration,
    sunPerUnit: Number(rateSun(resource, duration, world.rateOverrides)),
    overridden:
      world.rateOverrides?.has(rateKey(resource, duration)) === true &&
      rateSun(resource, duration, world.rateOverrides) !== bookRateSun(resource, duration),
  };
}

/** Changes the automation options and the prices, and backdates a history for /stats. */
export function marketControl(world: World): MarketControl {
  return {
    setAutomationOptions(args) {
      return setAutomationOptions(world, args ?? {});
    },

    setPrice(args) {
      const resource = oneOf<Resource>(args?.resource, ["energy", "bandwidth"], "resource");
      const duration = oneOf<Duration>(args?.duration, DURATIONS, "duration");
      const key = rateKey(resource, duration);
      if (args.sunPerUnit === null) {
        world.rateOverrides?.delete(key);
      } else {
        const raw = args.sunPerUnit;
        const text = typeof raw === "number" ? String(raw) : raw;
        // A whole number of sun: the price formula stays exact in bigint.
        if (typeof text !== "string" || !/^[1-9]\d{0,8}$/.test(text))
          throw badArgument(
            `sunPerUnit must be a whole number of sun from 1 to 999999999, or null, got ${JSON.stringify(raw)}`,
          );
        world.rateOverrides ??= new Map();
        world.rateOverrides.set(key, BigInt(text));
      }
      return rateView(world, resource, duration);
    },

    getPrices() {
      return (["energy", "bandwidth"] as const).flatMap((resource) =>
        DURATIONS.map((duration) => rateView(world, resource, duration)),
      );
    },

    fillHistory({ accountId, days }) {
      const account = requireAccount(world, accountId);
      const span = days ?? 30;
      if (typeof span !== "number" || !Number.isInteger(span) || span < 1 || span > 90)
        throw badArgument("days must be a whole number from 1 to 90");
      return fillHistory(world, account, span);
    },
  };
}
