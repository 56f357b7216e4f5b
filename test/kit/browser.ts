import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { startApp, type App, type AppOptions } from "#src/app";

const CHROMIUM = "/usr/bin/chromium";

export interface PlaygroundPage {
  app: App;
  browser: Browser;
  page: Page;
  /** Uncaught page errors and console errors, for the tests to assert none happened. */
  pageErrors: string[];
  /**
   * Stops the app as `npm start` stops on Ctrl-C, and starts a new one on the same port (a fresh
   * in-memory database and fake Telegram, as a restarted `npm start` has); `while` runs in between.
   */
  restart(options?: { while?: () => Promise<void> }): Promise<void>;
}

/**
 * The playground as `npm start` runs it (an in-memory database, the embedded sandbox), opened in
 * Debian's Chromium, offline: every request beyond the playground itself is refused. Started
 * before the file's tests and closed after them; the returned object is filled in by then.
 */
export function usePlaygroundPage(options: {
  out: string;
  viewport: { width: number; height: number };
  app?: Partial<AppOptions>;
}): PlaygroundPage {
  const handle = { pageErrors: [] as string[] } as PlaygroundPage;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the playground browser tests. They are not skipped on purpose.`,
      );
    }
    mkdirSync(options.out, { recursive: true });
    const env = { DATABASE_URL: ":memory:", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" };
    handle.app = await startApp({ env: { ...env, PORT: "0" }, ...options.app });
    handle.restart = async (steps = {}) => {
      const port = new URL(handle.app.url).port;
      await handle.app.stop();
      await steps.while?.();
      handle.app = await startApp({ env: { ...env, PORT: port }, ...options.app });
    };
    handle.browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    const context = await handle.browser.newContext({ viewport: options.viewport });
    await context.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    await context.addInitScript(recordToasts);
    handle.page = await context.newPage();
    // A step that waits longer than this fails naming its locator, before the test's own 30 s.
    handle.page.setDefaultTimeout(20_000);
    handle.page.on("pageerror", (error) => handle.pageErrors.push(error.message));
    handle.page.on("console", (message) => {
      if (message.type() === "error") handle.pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await handle.browser?.close();
    await handle.app?.stop();
  });
  return handle;
}

/**
 * Runs in the page before its scripts: keeps every text the toast shows, in order, in
 * `window.__toasts`. A toast hides itself after 2.6 s, which a busy machine can let pass between
 * two looks at the page; the record cannot be missed.
 */
function recordToasts(): void {
  const seen: string[] = [];
  (window as unknown as { __toasts: string[] }).__toasts = seen;
  let shown = "";
  new MutationObserver(() => {
    const element = document.getElementById("toast");
    const text = element && !element.hidden ? (element.textContent ?? "") : "";
    if (text && text !== shown) seen.push(text);
    shown = text;
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/**
 * Waits until the page has shown a toast containing `text` that no earlier call took, and takes
 * it. Needs a page from `usePlaygroundPage` (its toasts are recorded from the first load).
 */
export async function waitForToast(page: Page, text: string, timeout = 20_000): Promise<string> {
  const handle = await page.waitForFunction(
    (wanted) => {
      const toasts = (window as unknown as { __toasts?: string[]; __toastsTaken?: number[] }).__toasts ?? [];
      const taken = ((window as unknown as { __toastsTaken?: number[] }).__toastsTaken ??= []);
      const index = toasts.findIndex((shown, i) => shown.includes(wanted) && !taken.includes(i));
      if (index < 0) return false;
      taken.push(index);
      return toasts[index];
    },
    text,
    { timeout },
  );
  return (await handle.jsonValue()) as string;
}
