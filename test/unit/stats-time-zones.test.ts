import { describe, expect, it } from "vitest";
import {
  addDays,
  DIGEST_TIME_ZONES,
  isoWeekday,
  knownZone,
  lastDays,
  latestDigestSlot,
  localDate,
  localInstant,
  weekBefore,
  zoneForCode,
} from "#src/reports/time-zones";

const at = (iso: string) => Date.parse(iso);

describe("time zones of /stats and the weekly digest", () => {
  it("reads local dates and finds local midnight, across daylight-saving changes", () => {
    expect(localDate("Asia/Shanghai", at("2026-03-01T16:00:00Z"))).toBe("2026-03-02");
    expect(localDate("UTC", at("2026-03-01T16:00:00Z"))).toBe("2026-03-01");
    expect(new Date(localInstant("Asia/Shanghai", "2026-03-02")).toISOString()).toBe("2026-03-01T16:00:00.000Z");
    // New York: EST (UTC-5) before 8 March 2026, EDT (UTC-4) from it
    expect(new Date(localInstant("America/New_York", "2026-03-07", 9)).toISOString()).toBe("2026-03-07T14:00:00.000Z");
    expect(new Date(localInstant("America/New_York", "2026-03-09", 9)).toISOString()).toBe("2026-03-09T13:00:00.000Z");
    expect(new Date(localInstant("Europe/Berlin", "2026-10-26", 9)).toISOString()).toBe("2026-10-26T08:00:00.000Z");
    expect(addDays("2026-02-27", 3)).toBe("2026-03-02");
    expect(isoWeekday("2026-11-23")).toBe(1);
    expect(isoWeekday("2026-11-22")).toBe(7);
  });

  it("the digest's Monday 09:00 is the user's, and its week is the Monday-to-Sunday before", () => {
    // Monday 23 November 2026, 00:59 UTC = 08:59 in Shanghai: the slot is still last week's
    expect(latestDigestSlot("Asia/Shanghai", at("2026-11-23T00:59:00Z")).week).toBe("2026-11-16");
    const slot = latestDigestSlot("Asia/Shanghai", at("2026-11-23T01:00:00Z"));
    expect(slot).toEqual({ week: "2026-11-23", at: at("2026-11-23T01:00:00Z") });
    // …while in UTC it comes eight hours later
    expect(latestDigestSlot("UTC", at("2026-11-23T08:59:59Z")).week).toBe("2026-11-16");
    expect(latestDigestSlot("UTC", at("2026-11-23T09:00:00Z")).week).toBe("2026-11-23");
    expect(latestDigestSlot("America/New_York", at("2026-11-24T12:00:00Z"))).toEqual({
      week: "2026-11-23",
      at: at("2026-11-23T14:00:00Z"),
    });
    const week = weekBefore("Asia/Shanghai", "2026-11-23");
    expect(week.days).toEqual([
      "2026-11-16",
      "2026-11-17",
      "2026-11-18",
      "2026-11-19",
      "2026-11-20",
      "2026-11-21",
      "2026-11-22",
    ]);
    expect(new Date(week.from).toISOString()).toBe("2026-11-15T16:00:00.000Z");
    expect(new Date(week.to).toISOString()).toBe("2026-11-22T16:00:00.000Z");
  });

  it("a window of the last N days ends now and starts at local midnight N-1 days before", () => {
    const window = lastDays("Europe/Moscow", 7, at("2026-11-23T22:30:00Z"));
    // 01:30 on the 24th in Moscow
    expect(window.days.at(-1)).toBe("2026-11-24");
    expect(window.days[0]).toBe("2026-11-18");
    expect(new Date(window.from).toISOString()).toBe("2026-11-17T21:00:00.000Z");
    expect(lastDays("UTC", 30, at("2026-11-23T10:00:00Z")).days).toHaveLength(30);
  });

  it("offers a few zones by short codes, UTC for anything else", () => {
    expect(DIGEST_TIME_ZONES[0]!.zone).toBe("UTC");
    for (const { code, zone } of DIGEST_TIME_ZONES) {
      expect(zoneForCode(code)).toBe(zone);
      expect(`st:z:${code}`).toMatch(/^st:z:[a-z]{2,10}$/);
      // every offered zone is one Intl knows
      expect(() => localDate(zone, Date.now())).not.toThrow();
    }
    expect(zoneForCode("constructor")).toBeUndefined();
    expect(knownZone("Mars/Olympus")).toBe("UTC");
    expect(knownZone(null)).toBe("UTC");
  });
});
