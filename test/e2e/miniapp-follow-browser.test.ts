import { describe, expect, it } from "vitest";
import type { FrameLocator, Page } from "playwright-core";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/miniapp-follow";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
/** The promise: a change made elsewhere shows on the visible dashboard within 3 s. */
const FOLLOWS_WITHIN_MS = 3_000;

/**
 * The dashboard open beside the chat follows what changes elsewhere while it is visible: the
 * chat's Pause and Resume, a rule the marketplace paused; a theme switch never blanks it.
 */
describe("the dashboard Mini App follows changes made elsewhere, in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1400, height: 900 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;
  let short = "";

  async function play(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(
      `${playground.app.url}${path}`,
      body === undefined
        ? {}
        : {
            method: "POST",
            headers: { "content-type": "application/json", origin: playground.app.url },
            body: JSON.stringify(body),
          },
    );
    expect(response.ok, path).toBe(true);
    return response.json();
  }

  const frame = (page: Page): FrameLocator => page.frameLocator("#dashboard-frame");
  const ruleState = (page: Page) => frame(page).locator("li.rule", { hasText: short }).locator(".state");

  it("a Pause and a Resume in the chat, and a pause by the marketplace, show on the open dashboard within 3 s", async () => {
    const { page } = playground;
    await page.goto(`${playground.app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count()).toBe(1);
    const key = (await page.locator("#demo-key").textContent())!;
    await page.click("#connect-key");
    await page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor();
    await play("/play/api/send", { userId: 1001, text: `/refill ${ADDRESS} 30k 65k 1h`, waitMs: 3000 });
    await page.locator(".msg.bot .kb", { hasText: "Confirm" }).last().click();
    const created = page.locator(".msg.bot", { hasText: "Rule created" }).first();
    await created.waitFor();
    short = /rule\s+([0-9a-f]{8})/.exec((await created.textContent())!)![1]!;

    await page.click("#open-dashboard");
    await expect.poll(() => ruleState(page).textContent()).toContain("active");

    // Pause on the chat's card: the card shows it, and the dashboard within 3 s.
    const card = page.locator(".msg.bot", { hasText: short }).last();
    await card.locator(".kb", { hasText: "Pause" }).click();
    await card.locator(".kb", { hasText: "Resume" }).waitFor();
    await expect.poll(() => ruleState(page).textContent(), { timeout: FOLLOWS_WITHIN_MS }).toContain("paused by you");
    await frame(page).locator("li.rule", { hasText: short }).locator("button", { hasText: "Resume" }).waitFor();

    // Resume there.
    await card.locator(".kb", { hasText: "Resume" }).click();
    await card.locator(".kb", { hasText: "Pause" }).waitFor();
    await expect.poll(() => ruleState(page).textContent(), { timeout: FOLLOWS_WITHIN_MS }).toContain("active");

    // The marketplace pauses the rule (the sandbox panel plays it): the chat's alert, and the dashboard.
    const option = await page.locator("#rule-select option", { hasText: short }).first().getAttribute("value");
    await page.selectOption("#rule-select", option!);
    await page.click("#panel-pause");
    await page
      .locator(".msg.bot", { hasText: /paused/i })
      .last()
      .waitFor();
    await expect
      .poll(() => ruleState(page).textContent(), { timeout: FOLLOWS_WITHIN_MS })
      .toContain("paused by the marketplace");
    await page.screenshot({ path: `${OUT}/1-followed.png` });
    expect(pageErrors).toEqual([]);
  });

  it("reads nothing while hidden, and at once when shown again", async () => {
    const { page } = playground;
    const reads: number[] = [];
    const count = (request: { url(): string }) => {
      if (request.url().includes("/app/api/rules")) reads.push(Date.now());
    };
    page.on("request", count);
    try {
      const setVisibility = (state: "hidden" | "visible") =>
        frame(page)
          .locator("body")
          .evaluate((_, shown) => {
            Object.defineProperty(document, "visibilityState", { configurable: true, get: () => shown });
            document.dispatchEvent(new Event("visibilitychange"));
          }, state);
      await expect.poll(() => reads.length, { timeout: 5_000 }).toBeGreaterThan(0);
      await setVisibility("hidden");
      // A read in flight as it was hidden may still land: count from a moment later.
      await page.waitForTimeout(500);
      const hiddenFrom = reads.length;
      await page.waitForTimeout(5_000);
      expect(reads.length).toBe(hiddenFrom);
      const shownAt = Date.now();
      await setVisibility("visible");
      await expect.poll(() => reads.filter((at) => at >= shownAt).length, { timeout: 1_000 }).toBeGreaterThan(0);
    } finally {
      page.off("request", count);
    }
  });

  it("a theme switch never blanks it: ten in a row, each drawn in the theme chosen", async () => {
    const { page } = playground;
    const drawnIn = () =>
      frame(page)
        .locator("body")
        .evaluate(() => {
          const rule = document.querySelector("li.rule");
          const balances = document.getElementById("balances");
          const shown = (element: Element | null) =>
            element !== null && element.getBoundingClientRect().height > 0 && (element.textContent ?? "").trim() !== "";
          return {
            theme: document.documentElement.dataset.theme,
            drawn: shown(rule) && shown(balances),
            background: getComputedStyle(document.body).backgroundColor,
          };
        });
    for (let round = 1; round <= 10; round += 1) {
      const dark = !(await page.locator("#dashboard-dark").isChecked());
      await page.click("#dashboard-dark");
      await expect.poll(drawnIn, { timeout: 5_000 }).toEqual({
        theme: dark ? "dark" : "light",
        drawn: true,
        background: dark ? "rgb(15, 15, 15)" : "rgb(244, 244, 245)",
      });
      if (round <= 2) await page.screenshot({ path: `${OUT}/theme-${round}.png` });
    }
    expect(pageErrors).toEqual([]);
  });
});
