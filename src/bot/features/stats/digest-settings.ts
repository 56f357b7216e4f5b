import type { InlineKeyboard } from "grammy";
import { DIGEST_SETTING } from "#src/chat/callback-data";
import type { Kysely } from "kysely";
import type { Database } from "#src/db/schema";
import { setDigestPreference, type User } from "#src/db/repos/users";
import type { Translate } from "#src/chat/i18n";
import { DIGEST_TIME_ZONES, knownZone, latestDigestSlot, zoneForCode } from "#src/reports/time-zones";

/*
 * The weekly digest's part of /settings, kept apart from the settings card so the card can move
 * (to a menu) without this changing: its lines, its buttons and what a tap on them does.
 * Callback data (DIGEST_SETTING): "st:d:on" / "st:d:off" set the digest (idempotent, so a double
 * tap is harmless), "st:z:<code>" picks its time zone.
 */

/** "Asia/Shanghai" → "Shanghai": the city is what people recognise. */
function zoneLabel(zone: string): string {
  return zone === "UTC" ? "UTC" : (zone.split("/").at(-1) ?? zone).replace(/_/g, " ");
}

export function digestSettingsLines(tr: Translate, user: User): string[] {
  const on = user.digest_enabled === 1;
  const lines = ["", tr("settings-digest", { state: tr(on ? "state-on" : "state-off") })];
  if (on) lines.push(tr("settings-digest-when", { zone: knownZone(user.digest_time_zone) }));
  return lines;
}

export function addDigestButtons(keyboard: InlineKeyboard, tr: Translate, user: User): void {
  const on = user.digest_enabled === 1;
  keyboard
    .row()
    .text(
      tr("button-digest", { state: tr(on ? "state-on" : "state-off") }),
      DIGEST_SETTING.data("d", on ? "off" : "on"),
    )
    .row();
  if (!on) return;
  const current = knownZone(user.digest_time_zone);
  for (const [index, { code, zone }] of DIGEST_TIME_ZONES.entries()) {
    keyboard.text(`${zone === current ? "✅ " : ""}${zoneLabel(zone)}`, DIGEST_SETTING.data("z", code));
    if (index % 2 === 1) keyboard.row();
  }
}

/**
 * Applies a digest tap ("d" on/off, "z" zone code); false for a value it does not know. The
 * Monday already behind the user is marked done, so the first digest is the next Monday 09:00.
 */
export async function applyDigestSetting(
  db: Kysely<Database>,
  user: User,
  what: string,
  value: string,
  now: number,
): Promise<boolean> {
  if (what === "d" && (value === "on" || value === "off")) {
    const timeZone = knownZone(user.digest_time_zone);
    await setDigestPreference(
      db,
      user.telegram_id,
      { enabled: value === "on", week: latestDigestSlot(timeZone, now).week },
      now,
    );
    return true;
  }
  const zone = what === "z" ? zoneForCode(value) : undefined;
  if (!zone) return false;
  await setDigestPreference(db, user.telegram_id, { timeZone: zone, week: latestDigestSlot(zone, now).week }, now);
  return true;
}
