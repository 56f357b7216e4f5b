import { describe, expect, it } from "vitest";
import { usePlaygroundPage, waitForToast } from "../kit/browser";
import { expectedFigures } from "../kit/spending-oracle";
import { trxToSun } from "#src/marketplace/money";
import { dayText } from "#src/reports/report";
import { lastDays } from "#src/reports/time-zones";

const OUT = "test-output/history-window";
const MINUTE = 60_000;

/**
 * "Simulate: a month of history" and /stats for 30 days count different windows (30 × 24 hours
 * back from the press; 30 whole days in the user's time zone, today included), so each says which
 * one it counts, and each one's figures are exactly the sandbox's records in the window it states.
 */
describe("the history the panel fills and /stats, each with its window", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1200, height: 800 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  const send = async (text: string) => {
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
  };

  it("the panel's summary and /stats 30 days each state their days, and their figures agree with the records of those days", async () => {
    const { page, app } = playground;
    const sandbox = { marketplaceUrl: app.sandbox!.url };
    const accountId = app.sandbox!.sandbox.demo.accountId;
    await page.goto(`${app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count()).toBe(1);
    await page.click("#add-user");
    await send(`/connect ${app.sandbox!.demoApiKey}`);
    await page.locator(".msg.bot", { hasText: "linked" }).waitFor();

    await page.click("#panel-history");
    const summary = await waitForToast(page, "rule firings from");
    const said =
      /Added (\d+) orders and (\d+) rule firings from (\d{4}-\d\d-\d\d \d\d:\d\d) UTC to (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(([\d,.]+) TRX\)/.exec(
        summary,
      );
    expect(said, summary).not.toBeNull();
    const [, orders, firings, fromText, toText, trx] = said!;
    const filled = {
      from: Date.parse(`${fromText!.replace(" ", "T")}:00Z`),
      to: Date.parse(`${toText!.replace(" ", "T")}:00Z`),
    };
    // 30 days back from the press, to the press (the summary writes whole minutes).
    expect(filled.to).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - filled.to).toBeLessThan(2 * MINUTE);
    expect(filled.to - filled.from).toBe(30 * 86_400_000);
    const inFilled = await expectedFigures(sandbox, accountId, { from: filled.from, to: filled.to + MINUTE });
    expect(inFilled.orders.placed).toBeGreaterThan(10);
    expect({ orders: Number(orders), firings: Number(firings), spent: trxToSun(trx!.replace(/,/g, "")) }).toEqual({
      orders: inFilled.orders.placed,
      firings: inFilled.firings,
      spent: inFilled.spent,
    });

    await send("/stats");
    const chart = page.locator(".msg.bot", { hasText: "Spending, last 7 days" }).last();
    await chart.locator(".kb", { hasText: "30 days" }).click();
    const month = page.locator(".msg.bot", { hasText: "Spending, last 30 days" }).last();
    await month.waitFor({ timeout: 20_000 });
    const caption = (await month.textContent()) ?? "";
    const window = lastDays("UTC", 30, Date.now());
    expect(caption).toContain(`${dayText("en", window.days[0]!)} – ${dayText("en", window.days.at(-1)!)} (UTC)`);
    const inStats = await expectedFigures(sandbox, accountId, window);
    for (const line of [inStats.lines.orders, inStats.lines.firings, inStats.lines.spent])
      expect(caption).toContain(line);
    // The whole days /stats counts begin after the panel's window does (and end with it): no more than it added.
    expect(window.from).toBeGreaterThanOrEqual(filled.from);
    expect(inStats.orders.placed).toBeLessThanOrEqual(Number(orders));
    expect(inStats.firings).toBeLessThanOrEqual(Number(firings));
    await page.screenshot({ path: `${OUT}/stats-30-days.png` });
    expect(pageErrors).toEqual([]);
  });
});
