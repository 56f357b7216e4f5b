/**
 * The typed marketplace client: one method per endpoint of MARKETPLACE_API.md, each returning
 * the body parsed by its resource schema, each failing with a {@link MarketplaceError}.
 */
import { z } from "zod";
import { int64ToJson, toInt64 } from "./int64";
import type { Int64Input } from "./int64";
import {
  automationOptionsSchema,
  automationPreviewSchema,
  automationRuleSchema,
  firingSchema,
} from "./schemas/automation";
import type { AutomationOptions, AutomationPreview, AutomationRule, Firing } from "./schemas/automation";
import { notificationPageSchema } from "./schemas/notification";
import type { NotificationPage } from "./schemas/notification";
import {
  orderOptionsSchema,
  orderPreviewSchema,
  orderSchema,
  orderStatsSchema,
  priceQuoteSchema,
} from "./schemas/order";
import type { Order, OrderOptions, OrderPreview, OrderStats, PriceQuote } from "./schemas/order";
import { pagedSchema } from "./schemas/paged";
import type { Paged } from "./schemas/paged";
import { balanceSchema, depositAddressSchema, ledgerEntrySchema } from "./schemas/wallet";
import type { Balance, DepositAddress, LedgerEntry } from "./schemas/wallet";
import { createTransport } from "./transport";
import { fetchExchange, nodeExchange } from "./http-exchange";
import type { MarketplaceCallInfo, RequestSpec, Transport } from "./transport";

export interface MarketplaceClientOptions {
  /** The {base_url}; paths are /api/v1/…. A trailing slash is ignored. */
  baseUrl: string;
  /** A getter, so the key is not a plain enumerable property anywhere. Absent: only the public quote works. */
  apiKey?: () => string;
  /** Per attempt, body included. Default 10 000. */
  timeoutMs?: number;
  /** Retries after the first attempt, for reads and for the order POST. Default 3. */
  maxRetries?: number;
  /** Base of the exponential, fully jittered backoff, capped at 5 s per wait. Default 300. Retry-After (up to 30 s) overrides it. */
  backoffBaseMs?: number;
  /** A fetch function to send requests through (tests script one); default: Node's http/https with keep-alive. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Called after every attempt (metrics, logs); never receives the key. Must not throw. */
  onCall?: (info: MarketplaceCallInfo) => void;
  /** Source of jitter in [0, 1). Default Math.random; tests pin it. */
  random?: () => number;
  /** Clock in epoch ms, used to read a Retry-After given as an HTTP date. Default Date.now. */
  now?: () => number;
}

/** A one-off order request. `volume` may be any int64 form; it is sent as a JSON integer when safe. */
export interface CreateOrderInput {
  /** energy or bandwidth; omitted or null leaves the default to the marketplace. */
  resource?: string | null;
  targetAddress: string;
  volume: Int64Input;
  duration: string;
}

export interface PageQuery {
  page?: number;
  pageSize?: number;
}

export interface TransactionsQuery extends PageQuery {
  /** e.g. Deposit */
  type?: string;
  /** USDT-TRC20 or TRX */
  currency?: string;
}

/** Every endpoint of the marketplace API. Amounts are TRX decimal strings; int64 values are canonical decimal strings. */
export interface MarketplaceClient {
  /** POST /api/v1/orders. Charges TRX. Retries reuse `idempotencyKey`, so one key is one charge; bind it to the confirmation. */
  createOrder(body: CreateOrderInput, idempotencyKey: string): Promise<Order>;
  /** GET /api/v1/orders/{id}; not_found for an unknown or foreign order. */
  getOrder(id: string): Promise<Order>;
  /** GET /api/v1/orders, newest first; pageSize at most 100 (a larger one is sent as 100). */
  listOrders(query?: PageQuery): Promise<Paged<Order>>;
  orderStats(): Promise<OrderStats>;
  orderOptions(): Promise<OrderOptions>;
  /** GET /api/v1/orders/preview; charges nothing. `target` is the address, `days` is passed through as given. */
  previewOrder(query: { volume: Int64Input; days: string; resource?: string; target: string }): Promise<OrderPreview>;

  /** All rules, newest first, cancelled included. */
  listAutomations(): Promise<AutomationRule[]>;
  automationOptions(): Promise<AutomationOptions>;
  /** The cost of one firing; `type` is refill (default) or smart. */
  previewAutomation(query: { volume: Int64Input; duration: string; type?: string }): Promise<AutomationPreview>;
  /** Creates an auto-refill rule. Never retried: after a timeout, look for the rule in listAutomations before sending again. */
  createRefill(body: {
    targetAddress: string;
    minimal: Int64Input;
    volume: Int64Input;
    duration: string;
    autoResume?: boolean;
  }): Promise<AutomationRule>;
  /** Creates an auto-renewal rule; insufficient_balance when one renewal cannot be paid. Never retried. */
  createRenewal(body: { targetAddress: string; volume: Int64Input; autoResume?: boolean }): Promise<AutomationRule>;
  /** Creates a smart-mode rule; insufficient_balance when one delivery cannot be paid. Never retried. */
  createSmart(body: { targetAddress: string; autoResume?: boolean }): Promise<AutomationRule>;
  pauseAutomation(id: string): Promise<AutomationRule>;
  resumeAutomation(id: string): Promise<AutomationRule>;
  /** Final: a cancelled rule cannot be resumed. */
  cancelAutomation(id: string): Promise<AutomationRule>;
  /** Up to 50 firings, newest first. */
  automationFires(id: string): Promise<Firing[]>;

  balance(): Promise<Balance>;
  /** Created on the first call, stable afterwards. */
  depositAddress(): Promise<DepositAddress>;
  /** Ledger entries, newest first; defaults page 1, pageSize 20, max 100 (a larger one is sent as 100). */
  transactions(query?: TransactionsQuery): Promise<Paged<LedgerEntry>>;

  /**
   * GET /api/v1/pricing/quote: public, sent without X-Api-Key; the provider price with no
   * commission. An aborted `signal` ends the attempt in flight and its retries (a timeout error).
   */
  quote(
    query: { resource: string; duration: string; volume: Int64Input },
    options?: { signal?: AbortSignal },
  ): Promise<PriceQuote>;

  /** Fixed page size 20, with total and unread counts. */
  notifications(query?: { page?: number }): Promise<NotificationPage>;
  readAllNotifications(): Promise<void>;
  readNotification(id: string): Promise<void>;
}

const orderPageSchema = pagedSchema(orderSchema);
const ledgerPageSchema = pagedSchema(ledgerEntrySchema);
const automationListSchema = z.array(automationRuleSchema);
const firingListSchema = z.array(firingSchema);

/** Refuses an empty id before it turns /orders/{id} into /orders/ (the list). */
function pathId(id: string, name = "id"): string {
  if (typeof id !== "string" || id.trim() === "") throw new TypeError(`${name} must be a non-empty string`);
  return encodeURIComponent(id);
}

function pageParam(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 1))
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** The spec's maximum pageSize for the order and ledger lists. */
export const MAX_PAGE_SIZE = 100;

/** Clamped rather than refused: a caller asking for "everything" still gets the largest page the spec allows. */
function pageSizeParam(value: number | undefined): number | undefined {
  const size = pageParam(value, "pageSize");
  return size === undefined ? undefined : Math.min(size, MAX_PAGE_SIZE);
}

/** Retries after a failed first attempt when the caller sets none (reads, and orders with their key). */
export const DEFAULT_MARKETPLACE_RETRIES = 3;

/** A read: authenticated, retried as idempotent. */
function get(route: string, path: string, query?: RequestSpec["query"]): RequestSpec {
  return { method: "GET", route, path, ...(query ? { query } : {}), authenticated: true, retry: "idempotent" };
}

/** A write: authenticated, never retried unless the endpoint says otherwise. */
function post(route: string, path: string, body?: unknown): RequestSpec {
  return { method: "POST", route, path, ...(body === undefined ? {} : { body }), authenticated: true, retry: "never" };
}

type OrderEndpoints = Pick<
  MarketplaceClient,
  "createOrder" | "getOrder" | "listOrders" | "orderStats" | "orderOptions" | "previewOrder"
>;
type AutomationEndpoints = Pick<
  MarketplaceClient,
  | "listAutomations"
  | "automationOptions"
  | "previewAutomation"
  | "createRefill"
  | "createRenewal"
  | "createSmart"
  | "pauseAutomation"
  | "resumeAutomation"
  | "cancelAutomation"
  | "automationFires"
>;
type WalletEndpoints = Pick<MarketplaceClient, "balance" | "depositAddress" | "transactions">;
type PricingAndNotificationEndpoints = Pick<
  MarketplaceClient,
  "quote" | "notifications" | "readAllNotifications" | "readNotification"
>;

/** /api/v1/orders: placing an order (with its idempotency key), reading and previewing orders. */
function orderEndpoints(transport: Transport): OrderEndpoints {
  return {
    async createOrder(body, idempotencyKey) {
      if (typeof idempotencyKey !== "string" || idempotencyKey.trim() === "")
        throw new TypeError("idempotencyKey must be a non-empty string");
      const payload = {
        ...(body.resource === undefined ? {} : { resource: body.resource }),
        targetAddress: body.targetAddress,
        volume: int64ToJson(body.volume, "volume"),
        duration: body.duration,
      };
      return transport.json(
        {
          ...post("/api/v1/orders", "/api/v1/orders", payload),
          retry: "order",
          headers: { "Idempotency-Key": idempotencyKey },
        },
        orderSchema,
      );
    },
    getOrder: async (id) => transport.json(get("/api/v1/orders/{id}", `/api/v1/orders/${pathId(id)}`), orderSchema),
    listOrders: async (query = {}) =>
      transport.json(
        get("/api/v1/orders", "/api/v1/orders", {
          page: pageParam(query.page, "page"),
          pageSize: pageSizeParam(query.pageSize),
        }),
        orderPageSchema,
      ),
    orderStats: async () => transport.json(get("/api/v1/orders/stats", "/api/v1/orders/stats"), orderStatsSchema),
    orderOptions: async () =>
      transport.json(get("/api/v1/orders/options", "/api/v1/orders/options"), orderOptionsSchema),
    previewOrder: async (query) =>
      transport.json(
        get("/api/v1/orders/preview", "/api/v1/orders/preview", {
          volume: toInt64(query.volume, "volume"),
          days: query.days,
          resource: query.resource,
          target: query.target,
        }),
        orderPreviewSchema,
      ),
  };
}

/** /api/v1/automations: the rules, their options, previews, creation, pause, resume, cancel and firings. */
function automationEndpoints(transport: Transport): AutomationEndpoints {
  return {
    listAutomations: async () =>
      transport.json(get("/api/v1/automations", "/api/v1/automations"), automationListSchema),
    automationOptions: async () =>
      transport.json(get("/api/v1/automations/options", "/api/v1/automations/options"), automationOptionsSchema),
    previewAutomation: async (query) =>
      transport.json(
        get("/api/v1/automations/preview", "/api/v1/automations/preview", {
          volume: toInt64(query.volume, "volume"),
          duration: query.duration,
          type: query.type,
        }),
        automationPreviewSchema,
      ),
    createRefill: async (body) =>
      transport.json(
        post("/api/v1/automations", "/api/v1/automations", {
          targetAddress: body.targetAddress,
          minimal: int64ToJson(body.minimal, "minimal"),
          volume: int64ToJson(body.volume, "volume"),
          duration: body.duration,
          ...(body.autoResume === undefined ? {} : { autoResume: body.autoResume }),
        }),
        automationRuleSchema,
      ),
    createRenewal: async (body) =>
      transport.json(
        post("/api/v1/automations/renewal", "/api/v1/automations/renewal", {
          targetAddress: body.targetAddress,
          volume: int64ToJson(body.volume, "volume"),
          ...(body.autoResume === undefined ? {} : { autoResume: body.autoResume }),
        }),
        automationRuleSchema,
      ),
    createSmart: async (body) =>
      transport.json(
        post("/api/v1/automations/smart", "/api/v1/automations/smart", {
          targetAddress: body.targetAddress,
          ...(body.autoResume === undefined ? {} : { autoResume: body.autoResume }),
        }),
        automationRuleSchema,
      ),
    pauseAutomation: async (id) =>
      transport.json(
        post("/api/v1/automations/{id}/pause", `/api/v1/automations/${pathId(id)}/pause`),
        automationRuleSchema,
      ),
    resumeAutomation: async (id) =>
      transport.json(
        post("/api/v1/automations/{id}/resume", `/api/v1/automations/${pathId(id)}/resume`),
        automationRuleSchema,
      ),
    cancelAutomation: async (id) =>
      transport.json(
        post("/api/v1/automations/{id}/cancel", `/api/v1/automations/${pathId(id)}/cancel`),
        automationRuleSchema,
      ),
    automationFires: async (id) =>
      transport.json(
        get("/api/v1/automations/{id}/fires", `/api/v1/automations/${pathId(id)}/fires`),
        firingListSchema,
      ),
  };
}

/** /api/v1/wallet: the balance, the deposit address and the ledger. */
function walletEndpoints(transport: Transport): WalletEndpoints {
  return {
    balance: async () => transport.json(get("/api/v1/wallet/balance", "/api/v1/wallet/balance"), balanceSchema),
    depositAddress: async () =>
      transport.json(get("/api/v1/wallet/deposit-address", "/api/v1/wallet/deposit-address"), depositAddressSchema),
    transactions: async (query = {}) =>
      transport.json(
        get("/api/v1/wallet/transactions", "/api/v1/wallet/transactions", {
          page: pageParam(query.page, "page"),
          pageSize: pageSizeParam(query.pageSize),
          type: query.type,
          currency: query.currency,
        }),
        ledgerPageSchema,
      ),
  };
}

/** The public price quote and /api/v1/notifications. */
function pricingAndNotificationEndpoints(transport: Transport): PricingAndNotificationEndpoints {
  return {
    quote: async (query, options = {}) =>
      transport.json(
        {
          ...get("/api/v1/pricing/quote", "/api/v1/pricing/quote", {
            resource: query.resource,
            duration: query.duration,
            volume: toInt64(query.volume, "volume"),
          }),
          authenticated: false,
          ...(options.signal ? { signal: options.signal } : {}),
        },
        priceQuoteSchema,
      ),

    notifications: async (query = {}) =>
      transport.json(
        get("/api/v1/notifications", "/api/v1/notifications", { page: pageParam(query.page, "page") }),
        notificationPageSchema,
      ),
    readAllNotifications: async () =>
      transport.empty(post("/api/v1/notifications/read-all", "/api/v1/notifications/read-all")),
    readNotification: async (id) =>
      transport.empty(post("/api/v1/notifications/{id}/read", `/api/v1/notifications/${pathId(id)}/read`)),
  };
}

/** Builds a client for one marketplace and one key (or none, for the public quote only). */
export function createMarketplaceClient(options: MarketplaceClientOptions): MarketplaceClient {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? DEFAULT_MARKETPLACE_RETRIES,
    backoffBaseMs: options.backoffBaseMs ?? 300,
    exchange: options.fetch ? fetchExchange(options.fetch) : nodeExchange,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    ...(options.onCall ? { onCall: options.onCall } : {}),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  });

  return {
    ...orderEndpoints(transport),
    ...automationEndpoints(transport),
    ...walletEndpoints(transport),
    ...pricingAndNotificationEndpoints(transport),
  };
}
