/**
 * The README's pictures, in English and Chinese: `npm run docs:screenshots` (after `npm run
 * build:web`, which the npm script runs first) writes
 *
 *   docs/playground-en.png, docs/playground-zh.png   the playground after a first order
 *   docs/miniapp-en.png (light), docs/miniapp-zh.png (dark)   the dashboard Mini App
 *
 * Each language gets a fresh playground (`npm start`'s: an in-memory database, the embedded
 * sandbox, the fake Telegram) and its own simulated user, driven in Debian's Chromium
 * (/usr/bin/chromium, headless) as a person would: link the demo key, fill a month of history,
 * make two rules and pause one, buy, settle. Nothing is loaded from the network.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { startApp, type App } from "#src/app";
import { launchPath } from "#src/miniapp/index";
import { projectRoot } from "#src/paths";

const CHROMIUM = "/usr/bin/chromium";
const DOCS = join(projectRoot(), "docs");
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const OTHER_ADDRESS = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

const LANGUAGES = [
  { lang: "en", user: { id: 1001, firstName: "Alice", languageCode: "en" }, theme: "light" },
  { lang: "zh", user: { id: 1003, firstName: "李雷", languageCode: "zh" }, theme: "dark" },
] as const;

type Language = (typeof LANGUAGES)[number];

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(DOCS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  try {
    for (const language of LANGUAGES) await picturesIn(browser, language);
  } finally {
    await browser.close();
  }
}

async function picturesIn(browser: Browser, language: Language): Promise<void> {
  const app = await startApp({
    env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" },
    perChatMinTimeMs: 0,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, locale: language.lang });
    await context.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await playground(app, page, language);
    await page.screenshot({ path: join(DOCS, `playground-${language.lang}.png`) });

    await page.setViewportSize({ width: 390, height: 780 });
    await page.goto("about:blank");
    await page.goto(`${app.url}${launchPath(language.user, app.playground!.token, new Date(), language.theme)}`);
    await page.locator("li.rule").first().waitFor();
    await page.locator("#spending .bar").first().waitFor();
    // The fonts and the bars settle before the picture.
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: join(DOCS, `miniapp-${language.lang}.png`) });
    await context.close();
    console.warn(`wrote docs/playground-${language.lang}.png and docs/miniapp-${language.lang}.png`);
  } finally {
    await app.stop();
  }
}

/** The playground's story for the language's user, as the README's picture shows it. */
async function playground(app: App, page: Page, { user }: Language): Promise<void> {
  const count = (selector: string) => page.locator(selector).count();
  /** Waits until the page shows more than `than` of `selector` (a Playwright selector). */
  const more = async (selector: string, than: number) => {
    const until = Date.now() + 20_000;
    while ((await count(selector)) <= than) {
      if (Date.now() > until) throw new Error(`no more than ${than} of ${selector} within 20 s`);
      await page.waitForTimeout(100);
    }
  };
  const send = async (text: string) => {
    await page.fill("#composer-input", text);
    await page.keyboard.press("Enter");
    await page.locator(".msg.user", { hasText: text }).last().waitFor();
  };
  /** Sends `text`, then presses ✅ (Confirm, in every language) on the card the bot answers with. */
  const confirmed = async (text: string) => {
    const before = await count(".msg.bot .kb:has-text('✅')");
    await send(text);
    await more(".msg.bot .kb:has-text('✅')", before);
    await page.locator(".msg.bot .kb", { hasText: "✅" }).last().click();
  };

  await page.goto(`${app.url}/play`);
  await page.locator("#conn.live").waitFor();
  await page.selectOption("#user-select", String(user.id));
  await page.locator("#chat-sub", { hasText: `id ${user.id}` }).waitFor();

  await page.click("#start-button");
  await page.locator(".msg.bot").first().waitFor();
  const key = (await page.locator("#demo-key").textContent())!;
  await page.click("#connect-key");
  await page
    .locator(".msg.bot", { hasText: key.slice(-4) })
    .first()
    .waitFor();
  await page.click("#panel-history");
  await page.locator("#toast:not([hidden])").waitFor();

  // Two rules, the first paused, so the dashboard shows both states.
  const pauses = await count(".msg.bot .kb:has-text('⏸')");
  await confirmed(`/refill ${ADDRESS} 30k 65k 1h`);
  await more(".msg.bot .kb:has-text('⏸')", pauses);
  await page.locator(".msg.bot .kb", { hasText: "⏸" }).last().click();
  await page.locator(".msg.bot .kb", { hasText: "▶️" }).last().waitFor();
  const activeRules = await count(".msg.bot .kb:has-text('⏸')");
  await confirmed(`/smart ${OTHER_ADDRESS}`);
  await more(".msg.bot .kb:has-text('⏸')", activeRules);

  // A first order, settled: the card, the alert, the panel's log.
  await confirmed(`/buy energy 65000 1h ${ADDRESS}`);
  await page.locator(".msg.bot").last().locator(".meta .edited").waitFor();
  const before = await count(".msg.bot");
  await page.click("#panel-settle");
  await more(".msg.bot", before);
  await page.locator(".msg.bot").last().filter({ hasText: ADDRESS }).waitFor();

  // The dashboard beside the chat, the side panel at its top, no toast over the chat.
  await page.click("#open-dashboard");
  await page.frameLocator("#dashboard-frame").locator("li.rule").first().waitFor();
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    document.querySelector(".side")!.scrollTop = 0;
  });
  await page.locator("#toast").waitFor({ state: "hidden" });
  await page.evaluate(() => document.fonts.ready);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
