import { describe, expect, it } from "vitest";
import { usePlaygroundPage } from "../kit/browser";

const OUT = "test-output/pacing";
const ADDRESS = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";

/**
 * The playground as `npm start` runs it (Telegram's limits on, the bot's own pacing as deployed),
 * driven by someone who knows the way: each step as soon as the previous answer shows.
 */
describe("a brisk session in the playground", () => {
  const playground = usePlaygroundPage({ out: OUT, viewport: { width: 1200, height: 900 } });
  const { pageErrors } = playground;

  const type = async (text: string) => {
    await playground.page.fill("#composer-input", text);
    await playground.page.keyboard.press("Enter");
  };
  const bot = (text: string | RegExp) => playground.page.locator(".msg.bot:not(.rejected)", { hasText: text });

  it("/start, /quote, linking the demo key, /buy with Confirm, the filled alert and /topup: no call refused, none retried", async () => {
    await playground.page.goto(`${playground.app.url}/play`);
    await expect.poll(() => playground.page.locator("#conn.live").count()).toBe(1);
    await playground.page.click("#add-user");
    await expect.poll(() => playground.page.locator("#chat-sub").textContent()).toContain("id 2001");
    const chatId = 2001;
    const fake = playground.app.playground!.fake;
    const firstCall = fake.calls.at(-1)?.seq ?? 0;

    await type("/start");
    await bot("sandbox").first().waitFor();
    await type("/quote energy 65k 1h");
    await bot("65,000").first().waitFor();
    const key = (await playground.page.locator("#demo-key").textContent())!;
    await playground.page.click("#connect-key");
    await bot(key.slice(-4)).first().waitFor();
    await type(`/buy energy 65000 1h ${ADDRESS}`);
    const confirm = playground.page.locator(".msg.bot .kb", { hasText: "Confirm" }).last();
    await confirm.waitFor();
    await confirm.click();
    await bot(/Order placed/)
      .first()
      .waitFor();
    // Settle and ask for the deposit address at once: the alert and the QR photo race for the chat.
    await playground.page.click("#panel-settle");
    await type("/topup");
    await bot(/Order [0-9a-f]{8}\S* filled/)
      .first()
      .waitFor({ timeout: 20_000 });
    const qr = playground.page.locator(".msg.bot img.photo").last();
    await qr.waitFor({ timeout: 20_000 });
    await playground.page.screenshot({ path: `${OUT}/session.png` });

    // What the fake Telegram answered: every call of the session accepted, none throttled.
    const session = fake.calls.filter(
      (call) => call.seq > firstCall && (call.chatId ?? Number(call.params.chat_id)) === chatId,
    );
    expect(
      session.filter((call) => call.method === "sendMessage" || call.method === "sendPhoto").length,
    ).toBeGreaterThanOrEqual(7);
    expect(
      session.filter((call) => !call.ok).map((call) => `${call.method}: ${call.errorCode} ${call.description}`),
    ).toEqual([]);
    // What the page shows: no red line in the call log, no red bubble in the chat.
    expect(await playground.page.locator("#calls li.error").count()).toBe(0);
    expect(await playground.page.locator(".msg.rejected").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
