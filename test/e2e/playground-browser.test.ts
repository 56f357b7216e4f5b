import { describe, expect, it } from "vitest";
import { usePlaygroundPage, waitForToast } from "../kit/browser";

const OUT = "test-output/playground";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

describe("the local playground in a browser", () => {
  const playground = usePlaygroundPage({ out: OUT, viewport: { width: 1200, height: 800 } });
  const { pageErrors } = playground;

  const lastBot = () => playground.page.locator(".msg.bot:not(.rejected)").last();
  const send = async (text: string) => {
    const before = await playground.page.locator(".msg").count();
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
    await playground.page.waitForFunction((n) => document.querySelectorAll(".msg").length > n, before);
  };

  it("plays the story as a user would: type, tap buttons, settle from the panel, see the alert and the QR code", async () => {
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    // A fresh simulated user, so the story starts from an empty chat.
    await playground.page.click("#add-user");
    await expect.poll(() => playground.page.locator("#chat-sub").textContent()).toContain("id 2001");

    // The command menu comes from setMyCommands.
    await playground.page.fill("#composer-input", "/");
    await playground.page.locator("#composer-input").dispatchEvent("input");
    await playground.page.locator("#command-menu button", { hasText: "/start" }).first().waitFor();
    await playground.page.keyboard.press("Escape");

    await send("/start");
    await lastBot().locator(".kb", { hasText: "Quote" }).waitFor();
    await expect(lastBot().textContent()).resolves.toContain("sandbox");
    await lastBot().locator(".kb", { hasText: "Quote" }).click();
    // The Quote button starts the guided quote: its first question, with resource buttons.
    const question = playground.page.locator(".msg.bot", { hasText: "Which resource?" }).last();
    await question.waitFor();
    expect(await question.locator(".kb").count()).toBeGreaterThan(1);

    await send("/quote energy 65k 1h");
    await playground.page.locator(".msg.bot", { hasText: "65,000" }).first().waitFor();

    // Link the demo key from the panel; the message carrying it disappears from the chat.
    const key = (await playground.page.locator("#demo-key").textContent())!;
    expect(key.length).toBeGreaterThan(20);
    await playground.page.click("#connect-key");
    await playground.page
      .locator(".msg.bot", { hasText: key.slice(-4) })
      .first()
      .waitFor();
    await expect.poll(() => playground.page.locator(".msg.user", { hasText: key }).count()).toBe(0);

    await send(`/buy energy 65000 1h ${ADDRESS}`);
    const confirm = playground.page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await playground.page.screenshot({ path: `${OUT}/1-preview.png` });
    await confirm.click();
    // Confirm edits the card in place (buttons swapped, then the result): the bubble is marked edited.
    const placed = playground.page.locator(".msg.bot", { hasText: /placed|Order placed/ }).first();
    await placed.waitFor();
    await placed.locator(".meta .edited", { hasText: "edited" }).waitFor();

    await playground.page.click("#panel-settle");
    await waitForToast(playground.page, "Settled 1");
    const alert = playground.page.locator(".msg.bot", { hasText: /Order [0-9a-f]{8}\S* filled/ });
    await alert.first().waitFor({ timeout: 10_000 });
    await expect(alert.first().textContent()).resolves.toContain(ADDRESS);
    // The panel's Send webhook posts the same event through the bot's receiver: accepted, still one alert.
    await playground.page.click("#panel-send-webhook");
    await waitForToast(playground.page, "receiver accepted order.filled");
    expect(await alert.count()).toBe(1);
    // Paced as `npm start` paces a chat: Telegram refused none of the story's messages with a 429 (the call log shows no red line).
    const calls = (await (await fetch(`${playground.app.url}/play/api/calls`)).json()) as
      { calls?: Array<{ method: string; errorCode?: number }> } | Array<{ method: string; errorCode?: number }>;
    const list = Array.isArray(calls) ? calls : (calls.calls ?? []);
    expect(list.length).toBeGreaterThan(10);
    expect(list.filter((call) => call.errorCode === 429)).toEqual([]);
    await playground.page.screenshot({ path: `${OUT}/2-filled.png` });

    await send("/topup");
    const qr = playground.page.locator(".msg.bot img.photo").last();
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await qr.scrollIntoViewIfNeeded();
    await playground.page.screenshot({ path: `${OUT}/3-topup.png` });

    // The log lists calls; bot HTML is rendered as elements, never as markup text.
    await expect.poll(() => playground.page.locator("#calls li", { hasText: "sendPhoto" }).count()).toBeGreaterThan(0);
    expect(await playground.page.locator(".msg.bot code").count()).toBeGreaterThan(0);
    expect(await playground.page.locator(".messages").textContent()).not.toContain("<code>");

    // A call Telegram refuses shows in the chat as a red bubble with Telegram's description.
    const { apiRoot, token } = playground.app.playground!;
    await fetch(`${apiRoot}/bot${token}/sendMessage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: 2001, text: "<b>oops", parse_mode: "HTML" }),
    });
    await playground.page.locator(".msg.rejected", { hasText: "can't parse entities" }).waitFor();
    await playground.page.screenshot({ path: `${OUT}/4-rejected.png` });

    // A callback answer with text shows as a toast: Mark all read on the notification list.
    await send("/notifications");
    const markAll = lastBot().locator(".kb", { hasText: "Mark all read" });
    await markAll.waitFor();
    await markAll.click();
    await waitForToast(playground.page, "All marked as read");

    // Reloading shows the same history.
    const count = await playground.page.locator(".msg").count();
    await playground.page.reload();
    await expect.poll(() => playground.page.locator(".msg").count()).toBe(count);
    await playground.page.locator(".msg.bot img.photo").last().waitFor();
    await playground.page.locator(".msg.rejected", { hasText: "can't parse entities" }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("switching the language to ru, while the page still loads, gives Russian replies and the Russian command menu", async () => {
    // The page's last start-up request held back: the chat is drawn, the call log not yet.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await playground.page.route(
      "**/play/api/calls?getUpdates=1",
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await playground.page.reload();
    await playground.page.locator(".msg").first().waitFor();
    await playground.page.selectOption("#lang-select", "ru");
    await waitForToast(playground.page, "language_code is now ru", 5_000);
    release();
    await expect.poll(() => playground.page.locator("#chat-sub").textContent()).toContain("· ru");
    await send("/start");
    await playground.page.locator(".msg.bot", { hasText: "Добро пожаловать" }).last().waitFor();
    await expect(lastBot().textContent()).resolves.toContain("sandbox: без реальных TRX");

    await playground.page.fill("#composer-input", "/");
    await playground.page.locator("#composer-input").dispatchEvent("input");
    const start = playground.page.locator("#command-menu button", { hasText: "/start" }).first();
    await start.waitFor();
    await expect(start.textContent()).resolves.toContain("приветствие");
    await playground.page.keyboard.press("Escape");
    expect(pageErrors).toEqual([]);
  });
  it("a user added while the first chat still loads keeps the chat: the late first chat is not drawn over it", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const shown = (await playground.page.locator("#chat-sub").textContent())!;
    const firstId = /id (\d+)/.exec(shown)![1];
    await playground.page.route(
      `**/play/api/chat?userId=${firstId}`,
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await playground.page.reload();
    await playground.page.locator("#add-user").click();
    await expect
      .poll(() => playground.page.locator("#chat-sub").textContent())
      .toMatch(new RegExp(`you are .* id (?!${firstId}\\b)\\d+`));
    const added = (await playground.page.locator("#chat-sub").textContent())!;
    release();
    // The held answer is in; a chat drawn from it would name the first user again.
    await playground.page.waitForResponse(`**/play/api/chat?userId=${firstId}`);
    await playground.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(await playground.page.locator("#chat-sub").textContent()).toBe(added);
    expect(await playground.page.locator(".msg").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
