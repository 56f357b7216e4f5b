/**
 * The programmatic control surface: set up accounts and keys, move money, force outcomes and
 * inspect state. Arguments may arrive from HTTP as untrusted JSON, so each is checked.
 */
import type { Int64Format, SandboxControl } from "./types";
import type { World } from "./records";
import { ledgerView, notificationView, orderView, ruleView } from "./views";
import { newestFirst, notificationsOf, raiseNotification, requireAccount } from "./world";
import { badArgument, CONTROL_FORMAT as format, oneOf, PLACEMENTS, stringArg } from "./control-args";
import { accountControl } from "./control-accounts";
import { marketControl, orderControl, ruleControl } from "./control-market";

type MessageControl = Pick<SandboxControl, "addNotification" | "setWebhookUrl">;
type ListingControl = Pick<SandboxControl, "listOrders" | "listRules" | "ledger" | "listNotifications">;
type ApiBehaviourControl = Pick<
  SandboxControl,
  "injectFault" | "clearFaults" | "setErrorCodePlacement" | "setInt64Format"
>;

/** Raises a notification and sets where an account's webhooks go. */
function messageControl(world: World): MessageControl {
  return {
    addNotification({ accountId, type, level, title, body, link }) {
      const account = requireAccount(world, accountId);
      const record = raiseNotification(world, account.id, {
        type: type ?? "announcement",
        level: level ?? "info",
        title: stringArg(title, "title"),
        body: stringArg(body, "body"),
        link: link ?? null,
      });
      return notificationView(record);
    },

    setWebhookUrl({ accountId, url }) {
      const account = requireAccount(world, accountId);
      if (url !== null && (typeof url !== "string" || !/^https?:\/\//.test(url) || !URL.canParse(url))) {
        throw badArgument(`url must be an http(s) URL or null, got ${JSON.stringify(url)}`);
      }
      account.webhookUrl = url;
    },
  };
}

/** An account's orders, rules, ledger and notifications, newest first. */
function listingControl(world: World): ListingControl {
  return {
    listOrders(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.orders.filter((order) => order.accountId === account.id)).map((order) =>
        orderView(order, format),
      );
    },

    listRules(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.rules.filter((rule) => rule.accountId === account.id)).map((rule) =>
        ruleView(rule, format),
      );
    },

    ledger(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(world.ledger.filter((entry) => entry.accountId === account.id)).map(ledgerView);
    },

    listNotifications(accountId) {
      const account = requireAccount(world, accountId);
      return newestFirst(notificationsOf(world, account.id)).map(notificationView);
    },
  };
}

/** How the API answers: injected faults, where an error's code is, how int64 fields are written. */
function apiBehaviourControl(world: World): ApiBehaviourControl {
  return {
    injectFault({ times, ...fault }) {
      const remaining = times ?? 1;
      if (!Number.isInteger(remaining) || remaining < 1) throw badArgument("times must be a positive integer");
      if (fault.status !== undefined && (!Number.isInteger(fault.status) || fault.status < 200 || fault.status > 599)) {
        throw badArgument("status must be an HTTP status between 200 and 599");
      }
      world.faults.push({ ...fault, remaining });
    },

    clearFaults() {
      world.faults.length = 0;
    },

    setErrorCodePlacement({ placement }) {
      world.settings.errorCodePlacement = oneOf(placement, PLACEMENTS, "placement");
    },

    setInt64Format({ format: int64Format }) {
      world.settings.int64Format = oneOf<Int64Format>(int64Format, ["number", "string"], "format");
    },
  };
}

/** The whole control surface of a world, its areas joined. */
export function createControl(world: World): SandboxControl {
  return {
    ...accountControl(world),
    ...orderControl(world),
    ...ruleControl(world),
    ...messageControl(world),
    ...listingControl(world),
    ...apiBehaviourControl(world),
    ...marketControl(world),
  };
}
