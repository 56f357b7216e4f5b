import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";
import { launchPath, signInitData } from "#src/miniapp/index";
import { SIGNER_LIMIT } from "#src/miniapp/bounds";

const OUT = "test-output/miniapp-limits";

/**
 * The dashboard page when its API says no: past the signer's window (429 with Retry-After) it says
 * to wait a minute, and during a database outage (503 with Retry-After) it says something went
 * wrong; neither leaves a blank page, and Try again draws the dashboard once the server answers.
 */
describe("the dashboard Mini App when its API refuses, in a browser", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 390, height: 780 },
    app: { perChatMinTimeMs: 0 },
  });

  async function linkDemoKey(userId: number): Promise<void> {
    const { app } = playground;
    const config = (await (await fetch(`${app.url}/play/api/config`)).json()) as { demo: { apiKey: string } };
    const linked = await fetch(`${app.url}/play/api/send`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url },
      body: JSON.stringify({ userId, text: `/connect ${config.demo.apiKey}`, waitMs: 3000 }),
    });
    expect(linked.ok).toBe(true);
  }

  const open = async (path: string) => {
    await playground.page.goto("about:blank");
    await playground.page.goto(`${playground.app.url}${path}`);
  };

  it("past the signer's window: the page says to wait a minute, with Try again, and draws nothing half", async () => {
    const { app, page } = playground;
    const user = { id: 1101, firstName: "Ann", languageCode: "en" };
    await linkDemoKey(user.id);
    const initData = signInitData(user, app.playground!.token, new Date());
    for (let i = 0; i < SIGNER_LIMIT.limit; i++) {
      const answer = await fetch(`${app.url}/app/api/spending?days=7`, {
        headers: { authorization: `tma ${initData}` },
      });
      expect(answer.status).toBe(200);
    }
    await open(launchPath(user, app.playground!.token, new Date(), "light"));
    await expect.poll(() => page.locator("#notice").textContent()).toContain("Wait a minute, then try again");
    expect(await page.locator(".notice button", { hasText: "Try again" }).count()).toBe(1);
    expect(await page.locator("#balance-trx").count()).toBe(0);
    await page.screenshot({ path: `${OUT}/slow-down.png` });
  });

  it("a 503 (the database away): the page says something went wrong; Try again draws the dashboard once it is back", async () => {
    const { app, page } = playground;
    const user = { id: 1102, firstName: "Ben", languageCode: "en" };
    await linkDemoKey(user.id);
    let down = true;
    let refused = 0;
    await page.route("**/app/api/dashboard*", async (route) => {
      if (!down) return route.continue();
      refused += 1;
      return route.fulfill({ status: 503, headers: { "retry-after": "5" }, body: "" });
    });
    await open(launchPath(user, app.playground!.token, new Date(), "dark"));
    await expect.poll(() => page.locator("#notice").textContent()).toContain("Something went wrong");
    expect(refused).toBeGreaterThan(0);
    expect(await page.locator("#balance-trx").count()).toBe(0);
    down = false;
    await page.locator(".notice button", { hasText: "Try again" }).click();
    await page.locator("#balance-trx").waitFor();
    expect(await page.locator("#notice").count()).toBe(0);
    await page.unrouteAll({ behavior: "wait" });
  });
});
