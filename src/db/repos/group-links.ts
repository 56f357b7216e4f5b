import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, GroupLinksTable } from "../schema";
import { dropQueuedGroupAlerts } from "./outbox";

// Team alerts: each user's link to the group their chosen alerts are copied into.

export type GroupLink = Selectable<GroupLinksTable>;

/** The kinds of alert a user may copy into their group, in the order /group shows them. */
export const GROUP_ALERT_KINDS = ["filled", "failed", "paused", "prices", "other"] as const;
export type GroupAlertKind = (typeof GROUP_ALERT_KINDS)[number];

const COLUMN: Record<GroupAlertKind, "copy_filled" | "copy_failed" | "copy_paused" | "copy_prices" | "copy_other"> = {
  filled: "copy_filled",
  failed: "copy_failed",
  paused: "copy_paused",
  prices: "copy_prices",
  other: "copy_other",
};

/** Whether the link copies this kind of alert. */
export function copiesKind(link: GroupLink, kind: GroupAlertKind): boolean {
  return Number(link[COLUMN[kind]]) === 1;
}

/** A link as read (bigint columns come back as strings on PostgreSQL). */
function normalised(row: GroupLink): GroupLink {
  return {
    ...row,
    telegram_id: Number(row.telegram_id),
    group_chat_id: Number(row.group_chat_id),
    linked_at: Number(row.linked_at),
  };
}

export async function findGroupLink(db: Kysely<Database>, telegramId: number): Promise<GroupLink | null> {
  const row = await db.selectFrom("group_links").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
  return row ? normalised(row) : null;
}

/** The links of many users at once (a batch of webhook events), by user. */
export async function groupLinksOf(
  db: Kysely<Database> | Transaction<Database>,
  telegramIds: readonly number[],
): Promise<Map<number, GroupLink>> {
  const links = new Map<number, GroupLink>();
  const unique = [...new Set(telegramIds)];
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectFrom("group_links")
      .selectAll()
      .where("telegram_id", "in", unique.slice(start, start + 500))
      .execute();
    for (const row of rows) links.set(Number(row.telegram_id), normalised(row));
  }
  return links;
}

/** Every link into one group (whose alerts come there), oldest first. */
export async function linksToGroup(
  db: Kysely<Database> | Transaction<Database>,
  groupChatId: number,
): Promise<GroupLink[]> {
  const rows = await db
    .selectFrom("group_links")
    .selectAll()
    .where("group_chat_id", "=", groupChatId)
    .orderBy("linked_at")
    .execute();
  return rows.map(normalised);
}

/**
 * Links the user's alerts to a group (their earlier group, if any, is replaced; the choice of
 * kinds stays). `ownerName` is the first name the copies show.
 */
export async function saveGroupLink(
  db: Kysely<Database>,
  link: { telegramId: number; groupChatId: number; title: string; ownerName: string; now: number },
): Promise<GroupLink> {
  const values = {
    group_chat_id: link.groupChatId,
    group_title: link.title.slice(0, 128),
    owner_name: link.ownerName.slice(0, 64),
    linked_at: link.now,
  };
  await db
    .insertInto("group_links")
    .values({ telegram_id: link.telegramId, ...values })
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(values))
    .execute();
  const saved = await findGroupLink(db, link.telegramId);
  if (!saved) throw new Error("the group link was not saved");
  return saved;
}

/** Switches one kind of copied alert on or off; returns the link as it is now (null: no link). */
export async function toggleGroupCopy(
  db: Kysely<Database>,
  telegramId: number,
  kind: GroupAlertKind,
): Promise<GroupLink | null> {
  const column = COLUMN[kind];
  await db
    .updateTable("group_links")
    .set((eb) => ({ [column]: eb.case().when(column, "=", 1).then(0).else(1).end() }))
    .where("telegram_id", "=", telegramId)
    .execute();
  return findGroupLink(db, telegramId);
}

/**
 * Removes links: the user's own (`ownerId`), or every link into the group. Inside the caller's
 * transaction, which also drops what was queued for them there (see dropQueuedGroupAlerts).
 * Returns the links removed.
 */
export async function deleteGroupLinks(
  trx: Transaction<Database> | Kysely<Database>,
  where: { groupChatId?: number; ownerId?: number },
): Promise<GroupLink[]> {
  let query = trx.deleteFrom("group_links");
  if (where.groupChatId !== undefined) query = query.where("group_chat_id", "=", where.groupChatId);
  if (where.ownerId !== undefined) query = query.where("telegram_id", "=", where.ownerId);
  if (where.groupChatId === undefined && where.ownerId === undefined) return [];
  const rows = await query.returningAll().execute();
  return rows.map(normalised);
}

/**
 * A group became a supergroup with a new id: the links follow it, and so do the alerts queued for
 * the old id (one statement each, in one transaction). Returns how many links moved.
 */
export async function moveGroup(db: Kysely<Database>, fromChatId: number, toChatId: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable("group_links")
      .set({ group_chat_id: toChatId })
      .where("group_chat_id", "=", fromChatId)
      .executeTakeFirst();
    await trx
      .updateTable("outbox")
      .set({ chat_id: toChatId })
      .where("chat_id", "=", fromChatId)
      .where("status", "=", "queued")
      .execute();
    return Number(moved.numUpdatedRows);
  });
}

/** The owner's Stop group alerts: the link ends and what was queued for the group is dropped (no notice: they asked). */
export async function stopGroupLink(db: Kysely<Database>, ownerId: number): Promise<GroupLink | null> {
  return db.transaction().execute(async (trx) => {
    const [removed] = await deleteGroupLinks(trx, { ownerId });
    if (!removed) return null;
    await dropQueuedGroupAlerts(trx, ownerId, removed.group_chat_id, "group alerts stopped by their owner");
    return removed;
  });
}
