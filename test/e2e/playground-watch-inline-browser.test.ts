import { describe, expect, it } from "vitest";
import type { Locator } from "playwright-core";
import { usePlaygroundPage, waitForToast } from "../kit/browser";

const OUT = "test-output/watch-inline";
const VOLUME = 65_000n;
const WAIT = { timeout: 30_000 };

/** 65,000 units at `sunPerUnit`, in TRX as the bot writes it in English ("4.225 TRX", "1.95 TRX"). */
function trxFor(sunPerUnit: number): string {
  const sun = VOLUME * BigInt(sunPerUnit);
  const fraction = (sun % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${(sun / 1_000_000n).toLocaleString("en")}${fraction ? `.${fraction}` : ""} TRX`;
}

/** The sun per unit the panel shows next to its price slider ("65 sun/unit (price book)"). */
function shownRate(text: string | null): number {
  const match = /^(\d+) sun\/unit/.exec(text ?? "");
  if (!match) throw new Error(`the panel shows no rate: ${JSON.stringify(text)}`);
  return Number(match[1]);
}

/** The price watch and inline mode of the playground, as a user drives them in a browser. */
describe("the playground's price slider fires a price watch, and its inline box sends live quotes", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1200, height: 900 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  const send = async (text: string) => {
    const before = await playground.page.locator(".msg").count();
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
    await playground.page.waitForFunction((n) => document.querySelectorAll(".msg").length > n, before, WAIT);
  };
  /** The rate the panel shows for energy at `duration`, after choosing that duration in its select. */
  const panelRate = async (duration: "15m" | "1h" | "1d") => {
    await playground.page.selectOption("#price-resource", "energy");
    await playground.page.selectOption("#price-duration", duration);
    await expect.poll(() => playground.page.locator("#price-value").textContent(), WAIT).toMatch(/^\d+ sun\/unit/);
    return shownRate(await playground.page.locator("#price-value").textContent());
  };
  /**
   * Drags the range input's thumb with the mouse to where `value` sits, as a user would, and lets go.
   * Returns the value it landed on, and where the slider was on the page before and after.
   */
  const dragSlider = async (slider: Locator, value: number) => {
    await slider.scrollIntoViewIfNeeded();
    const box = (await slider.boundingBox())!;
    const { min, max, current, inset } = await slider.evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      return {
        min: Number(input.min),
        max: Number(input.max),
        current: Number(input.value),
        inset: parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth),
      };
    });
    // Chromium's default thumb is 16 px wide: its centre runs from inset + 8 px to width - inset - 8 px.
    const xOf = (v: number) => box.x + inset + 8 + ((v - min) / (max - min)) * (box.width - 2 * inset - 16);
    const y = box.y + box.height / 2;
    await playground.page.mouse.move(xOf(current), y);
    await playground.page.mouse.down();
    await playground.page.mouse.move(xOf(value), y, { steps: 12 });
    await playground.page.mouse.up();
    return { landed: Number(await slider.inputValue()), yBefore: box.y, yAfter: (await slider.boundingBox())!.y };
  };

  it("/watch below the current price, then the panel's slider moved under the threshold: the chat gets the alert with Buy now", async () => {
    const { page } = playground;
    await page.goto(`${playground.app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count(), WAIT).toBe(1);
    await page.click("#add-user");
    await expect.poll(() => page.locator("#chat-sub").textContent(), WAIT).toContain("id 2001");

    // The price the user sees in the panel for energy 1h picks a threshold under it, and a slider position under that.
    const rate = await panelRate("1h");
    expect(rate).toBeGreaterThan(40);
    const thresholdRate = rate - 10;
    const threshold = trxFor(thresholdRate).replace(" TRX", "");
    await send(`/watch energy 65k 1h ${threshold}`);
    const card = page.locator(".msg.bot", { hasText: "Price watch" }).last();
    await card.waitFor(WAIT);
    const cardText = (await card.textContent())!;
    expect(cardText).toContain("65,000 Energy for 1h");
    expect(cardText).toContain(`Alert when it costs at most ${threshold} TRX`);
    // The card's own "Price now" is the panel's rate, above the threshold: no alert yet.
    const priceNow = /Price now: ([\d,.]+) TRX/.exec(cardText)?.[1];
    expect(priceNow).toBe(trxFor(rate).replace(" TRX", ""));
    expect(Number(priceNow!.replace(/,/g, ""))).toBeGreaterThan(Number(threshold));
    expect(cardText).toContain("watching");
    expect(await card.locator(".kb", { hasText: "Pause" }).count()).toBe(1);
    const reached = page.locator(".msg.bot", { hasText: "the price reached your threshold" });
    expect(await reached.count()).toBe(0);

    // Drag the slider well under the threshold: it shows the rate it would set and changes nothing
    // until its button applies it; the set-price action then checks the price watches at once
    // (sandbox-panel.ts), so no cron minute is waited for.
    const slider = page.locator("#price-slider");
    const target = rate - 35;
    const { landed, yBefore, yAfter } = await dragSlider(slider, target);
    // It lands where the pointer let go (a pixel is about 5 sun), and the slider did not move under the pointer meanwhile.
    expect(Math.abs(landed - target)).toBeLessThanOrEqual(10);
    expect(yAfter).toBe(yBefore);
    expect(landed).toBeLessThan(thresholdRate);
    expect(landed).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => page.locator("#price-value").textContent(), WAIT)
      .toBe(`${landed} sun/unit (not applied yet; now ${rate})`);
    await expect
      .poll(() => page.locator("#panel-price").textContent(), WAIT)
      .toBe(`Simulate: set the price to ${landed} sun/unit`);
    // Nothing was applied on release: the sandbox's rate is unchanged and no alert came, even after a
    // panel refresh (which must not put the slider back either).
    expect(
      playground.app
        .sandbox!.sandbox.control.getPrices()
        .find((price) => price.resource === "energy" && price.duration === "1h")?.sunPerUnit,
    ).toBe(rate);
    const refreshed = page.waitForResponse(
      (response) => response.url().endsWith("/play/api/sandbox") && response.request().method() === "GET",
      WAIT,
    );
    await send("/help"); // a bot message makes the panel read the sandbox's state again
    await refreshed;
    await expect
      .poll(() => page.locator("#price-value").textContent(), WAIT)
      .toBe(`${landed} sun/unit (not applied yet; now ${rate})`);
    expect(await reached.count()).toBe(0);
    await page.click("#panel-price");
    await waitForToast(page, `energy 1h: ${landed} sun per unit · price watches: 1 checked, 1 alert(s)`, WAIT.timeout);
    await expect.poll(() => page.locator("#price-value").textContent(), WAIT).toBe(`${landed} sun/unit (set)`);
    await expect
      .poll(() => page.locator("#produces-price").textContent(), WAIT)
      .toContain(`→ ${landed} sun per unit for energy 1h`);

    const alert = reached.last();
    await alert.waitFor(WAIT);
    const alertText = (await alert.textContent())!;
    expect(alertText).toContain("65,000 Energy for 1h");
    expect(alertText).toContain(`Price: ${trxFor(landed)} (your threshold: ${threshold} TRX)`);
    const buyNow = alert.locator(".kb", { hasText: "Buy now" });
    expect(await buyNow.count()).toBe(1);
    await expect(buyNow.textContent()).resolves.toContain("🛒");
    expect(await reached.count()).toBe(1);

    // The price stays low: applying it again from the panel's button checks again, and the watch stays quiet.
    await page.click("#panel-price");
    await waitForToast(page, "price watches: 1 checked, 0 alert(s)", WAIT.timeout);
    expect(await reached.count()).toBe(1);
    await alert.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}/1-watch-alert.png` });
    expect(pageErrors).toEqual([]);
  });

  it("the inline box answers '65k' per duration and '65k 1h' with the live price; the chosen result lands in the chat with Buy in the bot", async () => {
    const { page } = playground;
    // The live rates, as the panel shows them (1h was moved by the slider above: not the price book's).
    const rates = { "15m": await panelRate("15m"), "1h": await panelRate("1h"), "1d": await panelRate("1d") };
    await expect.poll(() => page.locator("#price-value").textContent(), WAIT).toContain("(price book)");
    await playground.page.selectOption("#price-duration", "1h");
    await expect.poll(() => page.locator("#price-value").textContent(), WAIT).toBe(`${rates["1h"]} sun/unit (set)`);

    const results = page.locator("#inline-results");
    const resultButtons = results.locator("button");
    await page.fill("#inline-query", "65k");
    await expect.poll(() => resultButtons.count(), WAIT).toBe(3);
    await expect
      .poll(() => resultButtons.locator("b").allTextContents(), WAIT)
      .toEqual(
        (["15m", "1h", "1d"] as const).map((duration) => `65,000 Energy for ${duration}: ${trxFor(rates[duration])}`),
      );
    expect(await results.locator(".desc").allTextContents()).toEqual(
      (["15m", "1h", "1d"] as const).map((duration) => `${rates[duration]} sun per unit · live public price`),
    );
    await expect(results.locator(".empty").last().textContent()).resolves.toMatch(/cache_time \d+ s · 3 result\(s\)/);
    await page.screenshot({ path: `${OUT}/2-inline-results.png` });

    // Typed on to "65k 1h": one result, the 1h price.
    await page.fill("#inline-query", "65k 1h");
    const title = `65,000 Energy for 1h: ${trxFor(rates["1h"])}`;
    await expect.poll(() => resultButtons.locator("b").allTextContents(), WAIT).toEqual([title]);
    const before = await page.locator(".msg.user").count();
    await resultButtons.filter({ hasText: title }).click();

    // Sent into the chat by the user, via the bot, with the bot's link button; the box closes.
    await expect.poll(() => page.locator(".msg.user").count(), WAIT).toBe(before + 1);
    const sent = page.locator(".msg.user").last();
    await expect(sent.locator(".via").textContent()).resolves.toMatch(/^via @\w+bot$/);
    const sentText = (await sent.locator(".body").textContent())!;
    expect(sentText).toContain("65,000 Energy for 1h");
    expect(sentText).toContain(`Price: ${trxFor(rates["1h"])}`);
    const buyInBot = sent.locator(".kb", { hasText: "Buy in the bot" });
    expect(await buyInBot.count()).toBe(1);
    await expect(buyInBot.textContent()).resolves.toBe("⚡ Buy in the bot🔗");
    await expect.poll(() => results.isHidden(), WAIT).toBe(true);
    expect(await page.inputValue("#inline-query")).toBe("");
    await sent.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUT}/3-inline-sent.png` });

    // Buying needs a linked key: link the demo account's from the panel, then the button opens the bot as
    // Telegram would (/start with the rent), and the bot asks where to deliver 65,000 energy for 1h.
    const key = (await page.locator("#demo-key").textContent())!;
    await page.click("#connect-key");
    await page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor(WAIT);
    const botBefore = await page.locator(".msg.bot").count();
    await buyInBot.click();
    await expect.poll(() => page.locator(".msg.user").last().textContent(), WAIT).toContain("/start buy_energy_65k_1h");
    await expect.poll(() => page.locator(".msg.bot").count(), WAIT).toBeGreaterThan(botBefore);
    await expect(page.locator(".msg.bot").last().textContent()).resolves.toMatch(/address/i);
    await page.screenshot({ path: `${OUT}/4-buy-in-bot.png` });
    expect(pageErrors).toEqual([]);
  });
});
