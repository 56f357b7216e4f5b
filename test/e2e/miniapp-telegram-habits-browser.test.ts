import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";
import { launchPath } from "#src/miniapp/index";

const OUT = "test-output/miniapp-habits";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const ALICE = { id: 1001, firstName: "Alice", languageCode: "en" };

interface Posted {
  type: string;
  data?: Record<string, unknown>;
}

/**
 * Runs in the page before its scripts: a stand-in for the Telegram client around a Mini App on a
 * phone, which takes the page's events through `window.TelegramWebviewProxy.postEvent` (what
 * Telegram's own script calls for WebApp.disableVerticalSwipes and the rest). Every event is kept
 * in `window.__posted`.
 */
function telegramClientStub(): void {
  const posted: Posted[] = [];
  (window as unknown as { __posted: Posted[] }).__posted = posted;
  (window as unknown as { TelegramWebviewProxy: unknown }).TelegramWebviewProxy = {
    postEvent(type: string, data?: string) {
      posted.push({ type, ...(data ? { data: JSON.parse(data) as Record<string, unknown> } : {}) });
    },
  };
}

/**
 * The dashboard as a phone opens it: Telegram's own habits (swipes, the safe area, the device's
 * memory), and a spending chart that says its figures.
 */
describe("the dashboard Mini App on a phone, in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 390, height: 560 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  async function play(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${playground.app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: playground.app.url },
      body: JSON.stringify(body ?? {}),
    });
    expect(response.ok, path).toBe(true);
    return response.json();
  }

  /** Opens the dashboard afresh, as a tap on its button does. */
  async function launch(): Promise<void> {
    const { page, app } = playground;
    await page.goto("about:blank");
    await page.goto(`${app.url}${launchPath(ALICE, app.playground!.token, new Date(), "light")}`);
    await page.locator("li.rule").first().waitFor();
    await page.locator("#spending .bar").first().waitFor();
  }

  const posted = () => playground.page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted);
  const swipes = async () =>
    (await posted()).filter((event) => event.type === "web_app_setup_swipe_behavior").map((event) => event.data);
  const receive = (type: string, data: unknown) =>
    playground.page.evaluate(
      ([eventType, eventData]) =>
        (
          window as unknown as { Telegram: { WebView: { receiveEvent(type: string, data: unknown): void } } }
        ).Telegram.WebView.receiveEvent(eventType as string, eventData),
      [type, data] as const,
    );

  it("takes vertical swipes from Telegram while the page scrolls, and gives them back once it rests at its top", async () => {
    const { page, app } = playground;
    await page.context().addInitScript(telegramClientStub);
    await play("/play/api/send", { userId: ALICE.id, text: `/connect ${app.sandbox!.demoApiKey}`, waitMs: 3000 });
    await play("/play/api/sandbox/fill-history", { days: 30 });
    await play("/play/api/send", { userId: ALICE.id, text: `/refill ${ADDRESS} 30k 65k 1h`, waitMs: 3000 });
    const { messages } = (await (await fetch(`${app.url}/play/api/chat?userId=${ALICE.id}`)).json()) as {
      messages: Array<{
        messageId: number;
        replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> };
      }>;
    };
    const card = messages.findLast((message) =>
      message.replyMarkup?.inline_keyboard.flat().some((button) => button.text.includes("Confirm")),
    )!;
    const confirm = card.replyMarkup!.inline_keyboard.flat().find((button) => button.text.includes("Confirm"))!;
    await play("/play/api/press", {
      userId: ALICE.id,
      messageId: card.messageId,
      callbackData: confirm.callback_data,
      waitMs: 3000,
    });
    await launch();
    const scrollable = await page.evaluate(
      () => document.documentElement.scrollHeight > document.documentElement.clientHeight,
    );
    expect(scrollable).toBe(true);
    // Drawn: nothing taken from Telegram yet.
    expect(await swipes()).toEqual([]);

    await page.mouse.move(195, 300);
    await page.mouse.wheel(0, 300);
    await expect.poll(swipes).toEqual([{ allow_vertical_swipe: false }]);
    // Still scrolled away from the top once scrolling stopped: still the page's.
    await page.waitForTimeout(700);
    expect(await swipes()).toEqual([{ allow_vertical_swipe: false }]);
    // Back at the top and still: Telegram's again.
    await page.mouse.wheel(0, -3000);
    await expect
      .poll(swipes, { timeout: 3_000 })
      .toEqual([{ allow_vertical_swipe: false }, { allow_vertical_swipe: true }]);
    expect(await page.evaluate(() => document.documentElement.scrollTop)).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("keeps clear of the notch and of Telegram's controls in fullscreen (safe area and content safe area)", async () => {
    const { page } = playground;
    await launch();
    // The page asked for both areas.
    const asked = (await posted()).map((event) => event.type);
    expect(asked).toEqual(expect.arrayContaining(["web_app_request_safe_area", "web_app_request_content_safe_area"]));
    const padding = () =>
      page.evaluate(() => {
        const style = getComputedStyle(document.querySelector("main")!);
        return {
          top: style.paddingTop,
          bottom: style.paddingBottom,
          left: style.paddingLeft,
          right: style.paddingRight,
          heading: Math.round(document.querySelector("h1")!.getBoundingClientRect().top),
          fullscreen: document.documentElement.dataset.fullscreen,
        };
      });
    const before = await padding();
    expect(before).toMatchObject({ top: "12px", bottom: "24px", left: "12px", right: "12px", fullscreen: "false" });

    await receive("fullscreen_changed", { is_fullscreen: true });
    await receive("safe_area_changed", { top: 47, bottom: 34, left: 0, right: 0 });
    await receive("content_safe_area_changed", { top: 46, bottom: 0, left: 0, right: 0 });
    await expect.poll(padding).toMatchObject({
      top: `${12 + 47 + 46}px`,
      bottom: `${24 + 34}px`,
      left: "12px",
      right: "12px",
      fullscreen: "true",
    });
    expect((await padding()).heading).toBeGreaterThanOrEqual(47 + 46);
    await page.screenshot({ path: `${OUT}/fullscreen-safe-area.png` });
    // Landscape: the notch on a side.
    await receive("safe_area_changed", { top: 0, bottom: 21, left: 59, right: 59 });
    await expect.poll(padding).toMatchObject({ top: `${12 + 46}px`, left: `${12 + 59}px`, right: `${12 + 59}px` });
    // Out of fullscreen Telegram's controls cover nothing.
    await receive("fullscreen_changed", { is_fullscreen: false });
    await receive("content_safe_area_changed", { top: 0, bottom: 0, left: 0, right: 0 });
    await receive("safe_area_changed", { top: 0, bottom: 0, left: 0, right: 0 });
    await expect.poll(padding).toMatchObject({ top: "12px", bottom: "24px", fullscreen: "false" });
    expect(pageErrors).toEqual([]);
  });

  it("remembers the 7 or 30 days chosen on the device: the next launch opens on it", async () => {
    const { page } = playground;
    const asked: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/app/api/spending") asked.push(url.searchParams.get("days")!);
    });
    await launch();
    await page.locator("#days-7.on").waitFor();
    await page.click("#days-30");
    await page.locator("#days-30.on").waitFor();
    await expect.poll(() => page.locator("#spending .bar").count()).toBe(30);

    asked.length = 0;
    await launch();
    await page.locator("#days-30.on").waitFor();
    await expect.poll(() => page.locator("#spending .bar").count()).toBe(30);
    // The launch read the 30 days at once, not the 7 first.
    expect(asked).toEqual(["30"]);
    // Only the choice is kept: no launch parameters, no account data.
    const stored = await page.evaluate(() => Object.fromEntries(Object.entries(localStorage)));
    expect(stored).toEqual({ "dashboard.spending-days": "30" });

    await page.click("#days-7");
    await page.locator("#days-7.on").waitFor();
    await launch();
    await page.locator("#days-7.on").waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("each bar shows the TRX spent that day, as the server words it: 7 days with their dates, 30 upright", async () => {
    const { page, app } = playground;
    await launch();
    await page.locator("#days-7.on").waitFor();
    const initData = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get("tgWebAppData")!);
    const read = async (days: 7 | 30) =>
      (await (
        await fetch(`${app.url}/app/api/spending?days=${days}`, { headers: { authorization: `tma ${initData}` } })
      ).json()) as { perDay: Array<{ label: string; trx: string; value: string }> };
    const shown = () =>
      page.evaluate(() =>
        Array.from(document.querySelectorAll("#spending .bars .day")).map((day) => {
          const value = day.querySelector(".value")!;
          const box = value.getBoundingClientRect();
          const bar = day.querySelector(".bar")!.getBoundingClientRect();
          return {
            value: value.textContent ?? "",
            label: day.querySelector(".label")?.textContent ?? null,
            spoken: day.getAttribute("aria-label"),
            // The figure is whole (not cut), over its bar, inside its column.
            whole:
              (value as HTMLElement).scrollWidth <= Math.ceil(box.width) + 1 &&
              (value as HTMLElement).scrollHeight <= Math.ceil(box.height) + 1,
            over: box.bottom <= bar.top + 1,
          };
        }),
      );

    const week = await read(7);
    expect(week.perDay.some((day) => day.value !== "")).toBe(true);
    const seven = await shown();
    expect(seven.map((day) => day.value)).toEqual(week.perDay.map((day) => day.value));
    expect(seven.map((day) => day.label)).toEqual(week.perDay.map((day) => day.label));
    expect(seven.map((day) => day.spoken)).toEqual(week.perDay.map((day) => `${day.label}: ${day.trx} TRX`));
    for (const day of seven.filter((entry) => entry.value !== ""))
      expect(day).toMatchObject({ whole: true, over: true });
    // A figure is short: a tenth under 10 TRX, whole TRX above.
    for (const day of week.perDay.filter((entry) => entry.value !== ""))
      expect(day.value).toMatch(/^(<0\.1|\d\.\d|\d|\d{1,3}(,\d{3})*)$/);
    await page.locator("#spending").screenshot({ path: `${OUT}/bars-7.png` });

    await page.click("#days-30");
    await expect.poll(() => page.locator("#spending .bars .day").count()).toBe(30);
    const month = await read(30);
    const thirty = await shown();
    expect(thirty.map((day) => day.value)).toEqual(month.perDay.map((day) => day.value));
    for (const day of thirty.filter((entry) => entry.value !== ""))
      expect(day).toMatchObject({ whole: true, over: true });
    await page.locator("#spending").screenshot({ path: `${OUT}/bars-30.png` });
    await page.click("#days-7");
    expect(pageErrors).toEqual([]);
  });
});
