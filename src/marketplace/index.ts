/**
 * The marketplace client and everything its callers need: schemas and types of every resource,
 * the one error type, int64 and TRX helpers.
 */
export { createMarketplaceClient } from "./client";
export type {
  CreateOrderInput,
  MarketplaceClient,
  MarketplaceClientOptions,
  PageQuery,
  TransactionsQuery,
} from "./client";
export type { MarketplaceCallInfo } from "./transport";
export { MarketplaceError, isMarketplaceError, kindFor, readErrorBody } from "./errors";
export type { ErrorBody, MarketplaceErrorInit, MarketplaceErrorKind, ResponseIssue } from "./errors";
export { ERROR_CODE_FIELDS, KNOWN_ERROR_CODES, extractErrorCode } from "./error-code";
export type { KnownErrorCode } from "./error-code";
export { INT64_PATTERN, int64Schema, int64ToJson, parseInt64, toBigInt, toInt64 } from "./int64";
export type { Int64, Int64Input } from "./int64";
export { absentAsNull, dateTimeSchema, idSchema, int32Schema, trxSchema } from "./schemas/scalars";
export { pagedSchema } from "./schemas/paged";
export type { Paged } from "./schemas/paged";
export {
  orderOptionsSchema,
  orderPreviewSchema,
  orderSchema,
  orderStatsSchema,
  priceQuoteSchema,
} from "./schemas/order";
export type { Order, OrderOptions, OrderPreview, OrderStats, PriceQuote } from "./schemas/order";
export {
  automationOptionsSchema,
  automationPreviewSchema,
  automationRuleSchema,
  firingSchema,
} from "./schemas/automation";
export type { AutomationOptions, AutomationPreview, AutomationRule, Firing } from "./schemas/automation";
export { balanceSchema, depositAddressSchema, ledgerEntrySchema } from "./schemas/wallet";
export type { Balance, DepositAddress, LedgerEntry } from "./schemas/wallet";
export { notificationPageSchema, notificationSchema } from "./schemas/notification";
export type { Notification, NotificationPage } from "./schemas/notification";
export { MAX_BACKOFF_MS, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from "./retry-policy";
export * from "./money";
