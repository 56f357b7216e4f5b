import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import type { Logger } from "#src/logger";
import type { Metrics } from "#src/metrics";
import type { ChatPace, SendBudgetStore } from "#src/scale/send-budget";
import type { ArrivalWindow } from "#src/scale/arrival-window";
import type { OutboxPayload, OutboxRow } from "#src/db/repos/outbox";
import type { GroupGate } from "./group-gate";

/** What the outbox sender is built from. */
export interface SenderOptions {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Messages per second across all chats and replicas (Telegram: about 30; default the store's: 28, or 25 when replicas share PostgreSQL). */
  globalPerSecond?: number;
  /** Messages that may leave at once after a quiet spell (default 1.9: sends stay evenly spaced). */
  globalBurst?: number;
  /** One chat's pace, shared with the bot's replies (Telegram: a burst of 3, then about 1 per second). */
  chatPace?: ChatPace;
  /** This process's messages on arrival at Telegram, shared with the bot's replies. */
  window?: ArrivalWindow;
  /** Where the budgets live (shared with the bot's replies); default: the database. */
  budgetStore?: SendBudgetStore;
  leaseMs?: number;
  /** This replica's id (lease owner); random by default. */
  owner?: string;
  /**
   * Builds a row queued as a "sendDigest" into the Bot API call to make, when it is due; null
   * drops the row (nothing to send any more). A throw is retried like a failed send.
   */
  prepare?: (row: OutboxRow, payload: OutboxPayload) => Promise<OutboxPayload | null>;
  /** Team alerts: checks each group copy before it leaves and ends links a group refuses (without it, group rows are sent as any other). */
  groups?: GroupGate;
}
