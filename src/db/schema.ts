import type { Generated } from "kysely";
import type { GroupLinksTable } from "./tables/group-links";
import type { OpenRuleCardsTable } from "./tables/open-rule-cards";
import type { PriceWatchCyclesTable, PriceWatchesTable } from "./tables/price-watches";
import type { GuardSettingsTable } from "./tables/guard-settings";
import type { BotSpendsTable } from "./tables/bot-spends";
import type { RentalEndsTable } from "./tables/rental-ends";
import type { BalanceWatchTable } from "./tables/balance-watch";
import type { DeliveryMarksTable } from "./tables/delivery-marks";
import type { AutoBuyOrdersTable, AutoBuySwitchTable, AutoBuysTable } from "./tables/auto-buys";

export type { GroupLinksTable } from "./tables/group-links";
export type { PriceWatchCyclesTable, PriceWatchesTable } from "./tables/price-watches";

/**
 * The bot's tables. Times are integer milliseconds since the epoch; money and int64 values from
 * the marketplace are kept as decimal strings, never as floats.
 */

export interface UsersTable {
  telegram_id: number;
  chat_id: number;
  /** Language chosen in /settings; null = follow Telegram's language_code. */
  language: string | null;
  alert_orders: number;
  alert_rules: number;
  alert_deposits: number;
  alert_other: number;
  /** 0 after the user blocked the bot (403 on send); set back to 1 when they write again. */
  active: number;
  created_at: number;
  updated_at: number;
  /** 1 when the weekly digest is on (off by default). */
  digest_enabled: Generated<number>;
  /** IANA zone whose Monday 09:00 the digest goes out at; one of the zones /settings offers. */
  digest_time_zone: Generated<string>;
  /** Local date (YYYY-MM-DD) of the Monday whose digest was last queued or skipped; null = never. */
  digest_week: string | null;
  /** 1 when price watch alerts are pushed (on by default; /settings). */
  alert_prices: Generated<number>;
  /** The language of the command menu set for this user's chat; null = none set (Telegram's per-language menus apply). */
  menu_language: string | null;
  /** The language picked from the user's Telegram app (en, ru, zh) at their last update, for alerts while `language` is null; null = none recorded (English). */
  telegram_language: string | null;
}

/** A user's marketplace API key, AES-256-GCM encrypted; never stored in plaintext. */
export interface CredentialsTable {
  telegram_id: number;
  key_id: string;
  /** base64 of nonce (12 bytes) | ciphertext | tag (16 bytes). */
  ciphertext: string;
  last4: string;
  /** Set when the marketplace answered 401 (or 403 on a read) for this key. */
  broken_at: number | null;
  broken_notified: number;
  linked_at: number;
}

export interface WebhookTokensTable {
  telegram_id: number;
  /** SHA-256 (hex) of the random token; the token itself is shown once and never stored. */
  token_hash: string;
  created_at: number;
}

export interface AddressesTable {
  telegram_id: number;
  address: string;
  label: string | null;
  last_used_at: number;
}

/** The /connect key step in progress (one per user): "waiting for the key since …". Never holds a key. */
export interface FlowsTable {
  telegram_id: number;
  flow: string;
  step: string;
  data: string;
  version: number;
  updated_at: number;
}

/**
 * A guided flow on @grammyjs/conversations, one per chat: the plugin's versioned state (JSON) and,
 * for people reading the table, the flow and the step last asked. Never holds a key.
 */
export interface ConversationsTable {
  chat_id: number;
  flow: string;
  step: string;
  state: string;
  updated_at: number;
}

/** A confirmation card: what a Confirm tap will do, bound to one Idempotency-Key. */
export interface PendingActionsTable {
  id: string;
  telegram_id: number;
  kind: string;
  payload: string;
  idempotency_key: string;
  /** pending → processing → placed (result recorded) → done (result shown) | failed | cancelled */
  state: string;
  result: string | null;
  chat_id: number;
  message_id: number | null;
  created_at: number;
  updated_at: number;
}

/** Short ids standing in for long values (rule ids, order ids) in callback data. */
export interface CallbackRefsTable {
  id: string;
  telegram_id: number;
  value: string;
  created_at: number;
  /** When it last went out on a button; retention counts from here. */
  issued_at: number;
}

export interface OutboxTable {
  id: Generated<number>;
  telegram_id: number;
  chat_id: number;
  /** One alert per event: e.g. "order:<id>:filled"; unique per user. */
  dedupe_key: string;
  /** JSON: { method, params } of the Bot API call. */
  payload: string;
  /** queued → sent | dropped */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  sent_at: number | null;
}

export interface WebhookEventsTable {
  dedupe_key: string;
  received_at: number;
}

export interface SeenNotificationsTable {
  telegram_id: number;
  notification_id: string;
  seen_at: number;
}

export interface PollStateTable {
  telegram_id: number;
  /** 0 until the first poll recorded the existing notifications as seen. */
  primed: number;
  failures: number;
  next_poll_at: number;
  /** The poll cycle (poll_cycles.id) that last polled this user; due when below the open cycle. */
  last_cycle: Generated<number>;
  lease_owner: string | null;
  lease_until: number | null;
  /** Why the user is polled every cycle: "rule", "order" or "deposit"; null: idle (every POLL_IDLE_INTERVAL). */
  motion: Generated<string | null>;
  /** 1 while the user is known to have an active automation rule. */
  rule_active: Generated<number>;
  /** When the rule list was last read for rule_active (0: read it at the next poll). */
  rules_checked_at: Generated<number>;
  /** Fast until then: a Confirm or an order webhook (an order may be on its way). */
  order_until: Generated<number | null>;
  /** Fast until then: /topup or /wallet (a deposit is expected). */
  deposit_until: Generated<number | null>;
  /** Creation time (marketplace clock, ms) of the newest notification recorded as seen; older ones are never new. */
  seen_until: Generated<number | null>;
}

export interface FollowedOrdersTable {
  order_id: string;
  telegram_id: number;
  attempts: number;
  next_check_at: number;
  done: number;
  created_at: number;
  lease_owner: Generated<string | null>;
  lease_until: Generated<number | null>;
}

/** One notification poll cycle, opened once (by the first replica whose cron tick fires), worked by all. */
export interface PollCyclesTable {
  id: number;
  opened_by: string;
  opened_at: number;
  /** 1: an on-demand cycle that polls every linked user, whatever their schedule (back-off still holds). */
  everyone: Generated<number>;
}

/** Named leases: the polling leader, cron jobs. The holder renews; anyone takes an expired one. */
export interface LeasesTable {
  name: string;
  owner: string;
  lease_until: number;
  acquired_at: number;
}

/** Telegram's global limit shared by all replicas: a token bucket (thousandths of a message). */
export interface SendBudgetTable {
  name: string;
  tokens_milli: number;
  updated_at: number;
}

/** Telegram's per-chat limit shared by all replicas: the earliest time of the next message to a chat. */
export interface ChatSendTable {
  chat_id: number;
  next_send_at: number;
}

/** Telegram updates received in webhook mode: per-chat turns (in update_id order) and redelivery dedupe. */
export interface TelegramUpdatesTable {
  update_id: number;
  chat_id: number;
  owner: string;
  lease_until: number;
  done: number;
  received_at: number;
}

/** One /connect attempt; the hourly cap per user counts these (see repos/connect-attempts). */
export interface ConnectAttemptsTable {
  id: string;
  telegram_id: number;
  attempted_at: number;
}

/** Each user's current flood-limit window, shared by every replica (written on PostgreSQL only). */
export interface UpdateWindowsTable {
  telegram_id: number;
  window_start: number;
  /** Updates counted in the window so far, this one included. */
  updates: number;
}

export interface Database {
  users: UsersTable;
  credentials: CredentialsTable;
  webhook_tokens: WebhookTokensTable;
  addresses: AddressesTable;
  flows: FlowsTable;
  conversations: ConversationsTable;
  pending_actions: PendingActionsTable;
  callback_refs: CallbackRefsTable;
  outbox: OutboxTable;
  webhook_events: WebhookEventsTable;
  seen_notifications: SeenNotificationsTable;
  poll_state: PollStateTable;
  followed_orders: FollowedOrdersTable;
  poll_cycles: PollCyclesTable;
  leases: LeasesTable;
  send_budget: SendBudgetTable;
  chat_send: ChatSendTable;
  telegram_updates: TelegramUpdatesTable;
  connect_attempts: ConnectAttemptsTable;
  update_windows: UpdateWindowsTable;
  price_watches: PriceWatchesTable;
  price_watch_cycles: PriceWatchCyclesTable;
  group_links: GroupLinksTable;
  open_rule_cards: OpenRuleCardsTable;
  guard_settings: GuardSettingsTable;
  bot_spends: BotSpendsTable;
  rental_ends: RentalEndsTable;
  balance_watch: BalanceWatchTable;
  delivery_marks: DeliveryMarksTable;
  auto_buys: AutoBuysTable;
  auto_buy_orders: AutoBuyOrdersTable;
  auto_buy_switch: AutoBuySwitchTable;
}
