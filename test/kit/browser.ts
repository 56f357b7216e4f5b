import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { startApp, type App, type AppOptions } from "../../src/app";

const CHROMIUM = "/usr/bin/chromium";

export interface PlaygroundPage {
  app: App;
  browser: Browser;
  page: Page;
  /** Uncaught page errors and console errors, for the tests to assert none happened. */
  pageErrors: string[];
}

/**
 * The playground as `npm start` runs it (an in-memory database, the embedded sandbox), opened in
 * Debian's Chromium, offline: every request beyond the playground itself is refused. Started
 * before the file's tests and closed after them; the returned object is filled in by then.
 */
export function usePlaygroundPage(options: { out: string; viewport: { width: number; height: number }; app?: Partial<AppOptions> }): PlaygroundPage {
  const handle = { pageErrors: [] as string[] } as PlaygroundPage;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the playground browser tests. They are not skipped on purpose.`);
    }
    mkdirSync(options.out, { recursive: true });
    handle.app = await startApp({ env: { DATABASE_URL: ":memory:", PORT: "0", SECRET_KEY: randomBytes(32).toString("base64"), LOG_LEVEL: "silent" }, ...options.app });
    handle.browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    const context = await handle.browser.newContext({ viewport: options.viewport });
    await context.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    handle.page = await context.newPage();
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
