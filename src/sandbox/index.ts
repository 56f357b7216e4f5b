/**
 * The sandbox marketplace: an in-memory simulator of MARKETPLACE_API.md, used embedded by the
 * bot, standalone (`npm run sandbox`) and by every test. Time only moves through `now()`, and
 * settlement, renewals and webhook retries happen only in `tick()`.
 *
 * Choices where the spec says "not shown":
 * - Literals. Order status: "Created", "Filled", "Failed". Rule type: "auto-refill",
 *   "auto-renewal", "smart"; status: "active", "paused", "cancelled"; pauseReason "User" | "System".
 *   Ledger types: "Deposit", "OrderPayment", "OrderRefund", "AutomationCharge", "Adjustment"
 *   (setBalance); ledger status always "Completed"; ledger amounts are signed (debits negative).
 *   Notification types: "order.filled", "order.failed", "deposit.credited", "automation.paused",
 *   "automation.resumed", "automation.skipped", and "announcement" (addNotification default);
 *   levels: "info", "success", "warning", "error".
 * - Errors: problem JSON served as application/problem+json; every error carries a dotted code
 *   (placed per setErrorCodePlacement, default type "https://docs.marketplace.example/errors/<code>").
 *   Missing key → 401 api_key.missing; unknown or revoked → 401 api_key.invalid. Query validation
 *   → 400, creation-body validation → 422 (request.validation_failed); malformed JSON → 400.
 *   Unknown, foreign or non-UUID ids → 404 (<thing>.not_found). Pause from anything but active,
 *   resume from anything but paused, cancel of a cancelled rule → 409 automation.invalid_state.
 *   Resume without balance for one firing → 402 wallet.insufficient_balance. Sync provider
 *   failure → 502 provider.failed. Idempotency-Key reused with another body → 409
 *   idempotency.key_reused.
 * - Orders: resource defaults to energy; targetAddress must look like a TRON address (T + 33
 *   base58 characters; no checksum check). Volumes outside the options bounds → 422. The spend
 *   limit is checked before the balance. Idempotency-Key is optional, remembered forever per
 *   account, and only for orders that were created (a 402/403/422/502 is not remembered, so a
 *   retry after a 502 is a fresh attempt). A sync failure charges and refunds in the ledger but
 *   keeps no order. An address marked unactivated becomes activated when an order to it fills.
 *   Stats count every order; energy delivered counts Filled energy orders settled this UTC month.
 * - Preview: `days` is "15m" | "1h" | "1d" or a whole number N of days priced at N × the 1d rate;
 *   default "1d". Quote defaults: resource energy, duration 1h; volume is required. Both check
 *   volume against the order bounds (400).
 * - Automations: refill creation does not need balance; renewal and smart do. A renewal's duration
 *   is "1d" and its first firing is one day after creation; a sandbox that slept through several
 *   days fires once and moves to the next daily slot. Resume moves the renewal schedule past now.
 *   A firing that would exceed the creating key's spend limit is skipped with an
 *   "automation.skipped" notification (the rule stays active). Auto-resume runs on
 *   creditDeposit only. Notifications can be marked read with the read scope.
 * - Pages: page defaults to 1, pageSize to 20; pageSize above 100 is capped at 100.
 * - Webhooks: POST JSON {id, event, createdAt, data: {order}} with headers X-Marketplace-Event and
 *   X-Marketplace-Delivery (the event id, stable across retries), unsigned; first attempt at the
 *   tick that settles the order (settleNow queues them for the next tick); retried after 1s, 2s,
 *   4s, 8s, 16s; six attempts in all.
 * - Control routes answer {error, code} with 400/404/409 on bad arguments; void methods answer {ok: true}.
 */
export { createSandbox } from "./create-sandbox";
export { SandboxError, ERROR_TYPE_BASE } from "./problem";
export { API_KEY_PREFIX } from "./ids";
export type {
  BalanceView,
  ErrorCodePlacement,
  FaultSpec,
  FireResult,
  FiringView,
  Int64Format,
  LedgerEntryView,
  NotificationView,
  OrderView,
  RuleView,
  Sandbox,
  SandboxControl,
  SandboxOptions,
  Scope,
} from "./types";
