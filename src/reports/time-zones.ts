/**
 * Calendar days and wall-clock times in the user's time zone, through Intl (Node ships the full
 * time-zone database). Dates are "YYYY-MM-DD" strings, instants are epoch milliseconds.
 */

/** The zones /settings offers for the weekly digest; `code` is what travels in callback data. */
export const DIGEST_TIME_ZONES = [
  { code: "utc", zone: "UTC" },
  { code: "lon", zone: "Europe/London" },
  { code: "ber", zone: "Europe/Berlin" },
  { code: "ist", zone: "Europe/Istanbul" },
  { code: "msk", zone: "Europe/Moscow" },
  { code: "dxb", zone: "Asia/Dubai" },
  { code: "sha", zone: "Asia/Shanghai" },
  { code: "nyc", zone: "America/New_York" },
] as const;

export const DEFAULT_TIME_ZONE = "UTC";

/** The offered zone for a callback code, or undefined. */
export function zoneForCode(code: string): string | undefined {
  return DIGEST_TIME_ZONES.find((entry) => entry.code === code)?.zone;
}

/** A stored zone the bot still offers, else UTC (a zone dropped from the list must not break a digest). */
export function knownZone(zone: string | null | undefined): string {
  return DIGEST_TIME_ZONES.some((entry) => entry.zone === zone) ? zone! : DEFAULT_TIME_ZONE;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function localFields(
  timeZone: string,
  instant: number,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const fields: Record<string, number> = {};
  for (const part of partsFormatter(timeZone).formatToParts(new Date(instant)))
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  return {
    year: fields.year!,
    month: fields.month!,
    day: fields.day!,
    hour: fields.hour! % 24,
    minute: fields.minute!,
    second: fields.second!,
  };
}

/** Local time minus UTC at `instant`, in ms. */
export function zoneOffsetMs(timeZone: string, instant: number): number {
  const local = localFields(timeZone, instant);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - (instant - (((instant % 1000) + 1000) % 1000));
}

/** The local calendar date of an instant. */
export function localDate(timeZone: string, instant: number): string {
  const { year, month, day } = localFields(timeZone, instant);
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function utcMidday(date: string): Date {
  return new Date(`${date}T12:00:00Z`);
}

/** Calendar arithmetic on a local date (no time zone involved). */
export function addDays(date: string, days: number): string {
  const shifted = utcMidday(date);
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}

/** ISO day of the week: Monday 1 … Sunday 7. */
export function isoWeekday(date: string): number {
  return utcMidday(date).getUTCDay() || 7;
}

/** The instant the local clock in `timeZone` reads `hour`:00 on `date` (the later reading across a DST change). */
export function localInstant(timeZone: string, date: string, hour = 0): number {
  const wall = Date.parse(`${date}T${String(hour).padStart(2, "0")}:00:00Z`);
  const first = wall - zoneOffsetMs(timeZone, wall);
  return wall - zoneOffsetMs(timeZone, first);
}

/** A span of whole local days, the last one possibly cut at `to` (now). */
export interface DayWindow {
  timeZone: string;
  /** Local dates, oldest first. */
  days: string[];
  from: number;
  to: number;
}

/** The last `count` local days up to `now`, today included. */
export function lastDays(timeZone: string, count: number, now: number): DayWindow {
  const today = localDate(timeZone, now);
  const first = addDays(today, -(count - 1));
  return {
    timeZone,
    days: Array.from({ length: count }, (_, index) => addDays(first, index)),
    from: localInstant(timeZone, first),
    to: now,
  };
}

/** The local Monday-to-Sunday week before the Monday `week`. */
export function weekBefore(timeZone: string, week: string): DayWindow {
  const first = addDays(week, -7);
  return {
    timeZone,
    days: Array.from({ length: 7 }, (_, index) => addDays(first, index)),
    from: localInstant(timeZone, first),
    to: localInstant(timeZone, week),
  };
}

/** Local hour of the weekly digest, on Mondays. */
export const DIGEST_HOUR = 9;

/** The latest Monday DIGEST_HOUR:00 in `timeZone` at or before `now`: its local date (the week's key) and instant. */
export function latestDigestSlot(timeZone: string, now: number): { week: string; at: number } {
  const today = localDate(timeZone, now);
  let week = addDays(today, -(isoWeekday(today) - 1));
  let at = localInstant(timeZone, week, DIGEST_HOUR);
  if (at > now) {
    week = addDays(week, -7);
    at = localInstant(timeZone, week, DIGEST_HOUR);
  }
  return { week, at };
}
