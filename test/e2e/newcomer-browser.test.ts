import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { startApp, type App } from "../../src/app";

const CHROMIUM = "/usr/bin/chromium";
const OUT = "test-output/newcomer";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

/** The playground's side panel as a newcomer sees it: what each control is, what it will do, which mode is on. */
describe("the playground's panel in a browser, for a newcomer", () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the playground browser tests. They are not skipped on purpose.`);
    }
    mkdirSync(OUT, { recursive: true });
    app = await startApp({
      env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
      perChatMinTimeMs: 0,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 1000 } });
    await context.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const send = async (text: string) => {
    const before = await page.locator(".msg").count();
    await page.fill("#composer-input", text);
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => document.querySelectorAll(".msg").length > n, before);
  };
  const buy = async () => {
    const placedBefore = await page.locator(".msg.bot", { hasText: "Order placed" }).count();
    await send(`/buy energy 65000 1h ${ADDRESS}`);
    const confirm = page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    await expect.poll(() => page.locator(".msg.bot", { hasText: "Order placed" }).count()).toBe(placedBefore + 1);
  };
  const filledAlerts = () => page.locator(".msg.bot", { hasText: /Order [0-9a-f]{8}\S* filled/ });

  it("orders wait for the panel, which says so; the switch makes them settle by themselves; the filled alert asks for no payment", async () => {
    await page.goto(`${app.url}/play`);
    await expect.poll(() => page.locator("#conn.live").count()).toBe(1);
    await page.click("#add-user");
    await expect.poll(() => page.locator("#chat-sub").textContent()).toContain("id 2001");
    await expect.poll(() => page.locator("#settle-mode").textContent()).toContain("Mode: orders wait for you");
    expect(await page.isChecked("#settle-auto")).toBe(false);

    await page.click("#connect-key");
    const key = (await page.locator("#demo-key").textContent())!;
    await page.locator(".msg.bot", { hasText: key.slice(-4) }).first().waitFor();

    await buy();
    await expect.poll(() => page.locator("#produces-settle").textContent()).toContain("1 Created order(s) settle now");
    // Longer than a standalone sandbox waits before it settles by itself: the order is still waiting.
    await page.waitForTimeout(4500);
    await expect.poll(() => page.locator("#orders .status-Created").count()).toBe(1);
    expect(await filledAlerts().count()).toBe(0);
    await page.click("#panel-settle");
    await page.locator("#toast", { hasText: "Settled 1" }).waitFor();
    const alert = filledAlerts().first();
    await alert.waitFor({ timeout: 10_000 });
    const text = (await alert.textContent())!;
    expect(text).toContain("use the delegated resource instead of burning TRX");
    expect(text).toContain("Transaction: sandbox transaction");
    expect(text).not.toMatch(/send your usdt/i);
    expect(await alert.locator("a").count()).toBe(0);

    await page.fill("#settle-seconds", "1");
    await page.check("#settle-auto");
    await expect.poll(() => page.locator("#settle-mode").textContent()).toContain("Mode: orders settle by themselves 1 s after they are placed");
    await buy();
    await expect.poll(() => filledAlerts().count(), { timeout: 10_000 }).toBe(2);
    await page.screenshot({ path: `${OUT}/1-settle-mode.png` });
    await page.uncheck("#settle-auto");
    await expect.poll(() => page.locator("#settle-mode").textContent()).toContain("Mode: orders wait for you");
    expect(pageErrors).toEqual([]);
  });

  it("/topup's copy button shows one copy icon, the playground's own", async () => {
    await send("/topup");
    const copyButton = page.locator(".msg.bot .kb", { hasText: "Copy address" }).last();
    await copyButton.waitFor();
    expect(((await copyButton.textContent()) ?? "").match(/📋/g)).toHaveLength(1);
    expect(await page.locator(".msg.bot", { hasText: "Send only USDT or TRX to this address, over the TRON network (TRC20)" }).count()).toBeGreaterThan(0);
  });

  it("the panel's controls say they simulate the marketplace and what they will produce; the pause alert names its figures once", async () => {
    for (const id of ["panel-deposit", "panel-settle", "panel-fail", "panel-fire", "panel-pause", "panel-notify", "panel-send-webhook"]) {
      expect(await page.locator(`#${id}`).textContent()).toMatch(/^Simulate: /);
    }
    await page.fill("#deposit-amount", "100.5");
    const balance = /Balance: (\S+) TRX/.exec((await page.locator("#balance").textContent())!)![1]!;
    await expect.poll(() => page.locator("#produces-deposit").textContent()).toMatch(new RegExp(`^→ balance ${balance.replace(".", "\\.")} → \\d+(\\.\\d+)? TRX`));
    await page.selectOption("#fail-mode", "sync");
    await expect.poll(() => page.locator("#produces-fail").textContent()).toContain("refused at once (502); nothing is charged");
    await page.selectOption("#fail-mode", "async");
    await expect.poll(() => page.locator("#produces-fail").textContent()).toContain("settles as Failed; its TRX is refunded");

    await send(`/refill ${ADDRESS} 30k 65k 1h`);
    const confirm = page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    await expect.poll(() => page.locator("#rule-select option", { hasText: "active" }).count(), { timeout: 10_000 }).toBe(1);
    const produces = (await page.locator("#produces-pause").textContent())!;
    expect(produces).toContain("paused (System), as if the balance could not cover its next delivery, although it holds");
    await page.screenshot({ path: `${OUT}/2-panel.png`, fullPage: true });

    await page.click("#panel-pause");
    await page.locator("#toast", { hasText: "Rule paused" }).waitFor();
    const paused = page.locator(".msg.bot", { hasText: "paused by the marketplace" }).last();
    await paused.waitFor({ timeout: 10_000 });
    const text = (await paused.textContent())!;
    expect(text).toMatch(/Why: not enough balance\. The marketplace saw [\d,.]+ TRX; the next delivery costs [\d,.]+ TRX\./);
    expect(text.match(/not enough balance|cannot cover/g)).toHaveLength(1);
    expect(await paused.locator(".kb", { hasText: "Resume" }).count()).toBe(1);
    await expect.poll(() => page.locator("#produces-pause").textContent()).toBe("");
    await expect.poll(() => page.locator("#produces-fire").textContent()).toContain("is paused: only an active rule fires or pauses");
    expect(pageErrors).toEqual([]);
  });
});
