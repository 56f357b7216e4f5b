import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/playground-restart";

/**
 * `npm start` restarted with a /play tab open: the new server has a new fake Telegram (its event
 * ids, message ids and call numbers start again from 1) and a new database. The open tab notices
 * the new server by itself and draws its chat again; while the server is away its dot says so.
 */
describe("the playground's open tab across a restart of the server", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 1200, height: 800 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;
  const page = () => playground.page;

  const send = async (text: string) => {
    await page().fill("#composer-input", text);
    await page().keyboard.press("Enter");
  };

  it("resyncs by itself: the user's message and the reply show after the restart, and the dot is red while away", async () => {
    await page().goto(`${playground.app.url}/play`);
    await expect.poll(() => page().locator("#conn.live").count()).toBe(1);
    // A user added in this tab, speaking Russian: the new server has never heard of them.
    await page().selectOption("#lang-select", "ru");
    await page().click("#add-user");
    await expect.poll(() => page().locator("#chat-sub").textContent()).toContain("id 2001 · ru");
    await send("/start");
    await page().locator(".msg.user", { hasText: "/start" }).waitFor();
    await page().locator(".msg.bot", { hasText: "sandbox" }).first().waitFor();
    await send("/help");
    await page().locator(".msg.user", { hasText: "/help" }).waitFor();
    await page().locator(".msg.bot").nth(1).waitFor();
    const before = await page().locator(".msg").count();
    expect(before).toBeGreaterThanOrEqual(4);
    const callsBefore = await page().locator("#calls li").count();
    expect(callsBefore).toBeGreaterThan(0);

    await playground.restart({
      while: async () => {
        // Away: the dot stops claiming live updates, and says why.
        await expect.poll(() => page().locator("#conn.live").count(), { timeout: 10_000 }).toBe(0);
        await expect.poll(() => page().locator("#conn").getAttribute("title")).toMatch(/not reachable|reconnecting/i);
        await page().screenshot({ path: `${OUT}/1-away.png` });
      },
    });

    // Back: the tab noticed a new server and shows its chat (the old one is gone with the old
    // process's in-memory Telegram), without a reload.
    await expect.poll(() => page().locator("#conn.live").count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page().locator("#conn").getAttribute("title")).toMatch(/live/i);
    await expect.poll(() => page().locator(".msg").count()).toBe(0);
    await page().locator("#start-bar button", { hasText: "START" }).waitFor();
    // The tab's user is still the one chosen, with their name and language.
    await expect.poll(() => page().locator("#chat-sub").textContent()).toContain("id 2001 · ru");
    expect(await page().locator("#user-select").inputValue()).toBe("2001");

    await send("/start");
    await page().locator(".msg.user", { hasText: "/start" }).waitFor({ timeout: 10_000 });
    await page().locator(".msg.bot").first().waitFor({ timeout: 10_000 });
    await expect.poll(() => page().locator(".msg.bot").first().textContent()).toMatch(/[а-яё]/i);
    // A second message, whose ids the old server had already used: it shows too.
    await send("/help");
    await page().locator(".msg.user", { hasText: "/help" }).waitFor({ timeout: 10_000 });
    await expect.poll(() => page().locator(".msg.bot").count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    // The call log follows the new server too, whose calls are numbered from 1 again.
    const response = await fetch(`${playground.app.url}/play/api/calls?method=sendMessage`);
    const { calls } = (await response.json()) as { calls: Array<{ seq: number }> };
    const newest = calls.at(-1)!.seq;
    await expect
      .poll(() =>
        page()
          .locator("#calls li", { hasText: new RegExp(`^#${newest} sendMessage`) })
          .count(),
      )
      .toBe(1);
    await page().screenshot({ path: `${OUT}/2-back.png` });
    expect(pageErrors.filter((error) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(error))).toEqual([]);
  });
});
