import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/first-screen";

/** The playground's chat as a newcomer first sees it, on a phone-sized screen. */
describe("the playground's first screen in a browser, at phone width", () => {
  const playground = usePlaygroundPage({
    out: OUT,
    viewport: { width: 390, height: 844 },
    app: { perChatMinTimeMs: 0 },
  });
  const { pageErrors } = playground;

  const send = async (text: string) => {
    const before = await playground.page.locator(".msg.bot").count();
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
    await playground.page.waitForFunction((n) => document.querySelectorAll(".msg.bot").length > n, before);
  };
  const distanceFromNewest = () =>
    playground.page.evaluate(() => {
      const list = document.getElementById("messages")!;
      return list.scrollHeight - list.scrollTop - list.clientHeight;
    });

  it("a new chat offers Telegram's START button and says what the bot does; START sends /start", async () => {
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    await playground.page.click("#add-user");
    await expect.poll(() => playground.page.locator("#chat-sub").textContent()).toContain("id 2001");
    const start = playground.page.locator("#start-bar button", { hasText: "START" });
    await start.waitFor();
    await playground.page.locator(".empty-chat", { hasText: "What can this bot do?" }).waitFor();
    await playground.page.screenshot({ path: `${OUT}/1-new-chat.png` });

    await start.click();
    await playground.page.locator(".msg.user", { hasText: "/start" }).waitFor();
    await playground.page.locator(".msg.bot", { hasText: "sandbox" }).first().waitFor();
    await expect.poll(() => playground.page.locator("#start-bar").isHidden()).toBe(true);
    expect(await playground.page.locator(".empty-chat").count()).toBe(0);
    // A chat with history shows no START.
    await playground.page.reload();
    await playground.page.locator(".msg.bot").first().waitFor();
    expect(await playground.page.locator("#start-bar").isHidden()).toBe(true);
  });

  it("shows “typing…” while the bot waits for the marketplace, and the fake Telegram recorded the chat action", async () => {
    playground.app.sandbox!.sandbox.control.injectFault({ pathPrefix: "/api/v1/pricing/quote", delayMs: 2_000 });
    const typing = playground.page.locator("#chat-typing", { hasText: "typing…" });
    await playground.page.fill("#composer-input", "/quote energy 65k 1h");
    await playground.page.keyboard.press("Enter");
    await typing.waitFor({ state: "visible", timeout: 10_000 });
    await playground.page.screenshot({ path: `${OUT}/2-typing.png` });
    await playground.page.locator(".msg.bot", { hasText: "65,000" }).first().waitFor({ timeout: 15_000 });
    await typing.waitFor({ state: "hidden" });
    expect(await playground.page.locator("#chat-sub").isVisible()).toBe(true);
    const actions = playground.app.playground!.fake.calls.filter(
      (call) => call.method === "sendChatAction" && call.ok && Number(call.params.chat_id) === 2001,
    );
    expect(actions.map((call) => call.params.action)).toContain("typing");
  });

  it("a message typed while the page still loads waits for the composer and is sent once, not lost to a reload of the page", async () => {
    // On a slow machine the page shows the chat before it has finished loading; hold that last step back.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await playground.page.route("**/play/api/calls?getUpdates=1", async (route) => {
      await held;
      await route.continue();
    });
    const helps = () =>
      playground.app.playground!.fake.calls.filter(
        (call) => call.method === "sendMessage" && call.ok && String(call.params.text).includes("<b>Commands</b>"),
      ).length;
    const helpsBefore = helps();
    await playground.page.reload();
    await playground.page.locator(".msg.bot").last().waitFor();
    expect(await playground.page.locator("#composer-input").isDisabled()).toBe(true);
    const typed = playground.page.fill("#composer-input", "/help");
    setTimeout(release, 500);
    await typed;
    await playground.page.keyboard.press("Enter");
    await playground.page.locator(".msg.user", { hasText: "/help" }).last().waitFor();
    await expect.poll(helps).toBe(helpsBefore + 1);
    await playground.page.unroute("**/play/api/calls?getUpdates=1");
  });

  it("opens a long chat on its newest message, offers a jump back down once scrolled up, and jumps", async () => {
    for (let i = 0; i < 4; i++) await send("/help");
    await playground.page.reload();
    await playground.page.locator(".msg.bot").last().waitFor();
    // The side panel appears below the chat after the first screen and takes height from it.
    await playground.page.locator("#panel").waitFor();
    await expect.poll(distanceFromNewest).toBeLessThan(2);
    const jump = playground.page.locator("#scroll-down");
    expect(await jump.isHidden()).toBe(true);
    await playground.page.screenshot({ path: `${OUT}/3-newest.png` });

    await playground.page.evaluate(() => document.getElementById("messages")!.scrollTo({ top: 0 }));
    await jump.waitFor({ state: "visible" });
    await playground.page.screenshot({ path: `${OUT}/4-scrolled-up.png` });
    await jump.click();
    await expect.poll(distanceFromNewest).toBeLessThan(2);
    await jump.waitFor({ state: "hidden" });
    expect(pageErrors).toEqual([]);
  });
});
