import { InputFile } from "grammy";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { ALICE, apiError, networkError, world } from "./grammy-helpers";

function png(width: number, height: number): Uint8Array {
  const image = new PNG({ width, height });
  image.data.fill(255);
  return new Uint8Array(PNG.sync.write(image));
}

describe("photos", () => {
  it("takes a multipart upload, keeps the bytes and serves them through getFile", async () => {
    const { fake, bot, apiRoot, token } = await world();
    fake.sendText(ALICE, "/deposit");
    const bytes = png(33, 21);
    const sent = await bot.api.sendPhoto(ALICE.id, new InputFile(bytes, "qr.png"), {
      caption: "Send TRX to <code>TNPe</code>",
      parse_mode: "HTML",
    });
    expect(sent.caption).toBe("Send TRX to TNPe");
    expect(sent.caption_entities).toEqual([{ type: "code", offset: 12, length: 4 }]);
    expect(sent.photo).toEqual([expect.objectContaining({ width: 33, height: 21, file_size: bytes.length })]);
    const fileId = sent.photo.at(-1)!.file_id;

    const message = fake.messages(ALICE.id).at(-1)!;
    expect(message.photo?.fileId).toBe(fileId);
    expect(Buffer.from(message.photo!.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(fake.calls.at(-1)?.params.photo).toEqual({ bytes: bytes.length });

    const file = await bot.api.getFile(fileId);
    const download = await fetch(`${apiRoot}/file/bot${token}/${file.file_path}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect((await fetch(`${apiRoot}/file/bot1:WRONG/${file.file_path}`)).status).toBe(404);

    const again = await bot.api.sendPhoto(ALICE.id, fileId);
    expect(again.photo.at(-1)?.file_id).toBe(fileId);
  });

  it("takes a URL, refuses unknown file ids and long captions", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    await bot.api.sendPhoto(ALICE.id, "https://example.org/qr.png");
    expect(fake.messages(ALICE.id).at(-1)?.photo?.url).toBe("https://example.org/qr.png");
    expect((await apiError(bot.api.sendPhoto(ALICE.id, "no-such-file"))).description).toBe(
      "Bad Request: wrong file identifier/HTTP URL specified",
    );
    const longCaption = await apiError(
      bot.api.sendPhoto(ALICE.id, "https://example.org/qr.png", { caption: "x".repeat(1025) }),
    );
    expect(longCaption.description).toBe("Bad Request: message caption is too long");
  });
});

describe("flood control", () => {
  it("answers 429 with retry_after past the per-chat burst, recorded as throttled", async () => {
    let now = 1_700_000_000_000;
    const { fake, bot } = await world({ now: () => now, rateLimits: { enabled: true } });
    fake.sendText(ALICE, "hi");
    for (let i = 0; i < 3; i += 1) await bot.api.sendMessage(ALICE.id, `burst ${i}`);
    const throttled = await apiError(bot.api.sendMessage(ALICE.id, "one too many"));
    expect(throttled.error_code).toBe(429);
    expect(throttled.description).toBe("Too Many Requests: retry after 1");
    expect(throttled.parameters.retry_after).toBe(1);
    expect(fake.calls.at(-1)).toMatchObject({ ok: false, errorCode: 429, throttled: true });
    expect(fake.rejectedCalls()).toEqual([]);
    now += 1000;
    await bot.api.sendMessage(ALICE.id, "after waiting");
  });

  it("limits all chats together at globalPerSecond", async () => {
    const now = 1_700_000_000_000;
    const { fake, bot } = await world({ now: () => now, rateLimits: { enabled: true, globalPerSecond: 2 } });
    for (const id of [1, 2, 3]) fake.sendText({ id }, "hi");
    await bot.api.sendMessage(1, "a");
    await bot.api.sendMessage(2, "b");
    expect((await apiError(bot.api.sendMessage(3, "c"))).error_code).toBe(429);
  });
});

describe("injected faults", () => {
  it("answers 502 while down with 5xx, and hangs up while refusing", async () => {
    const { fake, bot } = await world();
    fake.setDown("5xx");
    const badGateway = await apiError(bot.api.getMe());
    expect([badGateway.error_code, badGateway.description]).toEqual([502, "Bad Gateway"]);
    fake.setDown("refuse");
    await networkError(bot.api.getMe());
    fake.setDown(null);
    await bot.api.getMe();
    expect(fake.calls.filter((call) => call.injectedFault)).toHaveLength(2);
    expect(fake.rejectedCalls()).toEqual([]);
  });

  it("answers 403 for a user who blocked the bot, until they write again", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "hi");
    fake.blockUser(ALICE.id);
    const blocked = await apiError(bot.api.sendMessage(ALICE.id, "news"));
    expect([blocked.error_code, blocked.description]).toEqual([403, "Forbidden: bot was blocked by the user"]);
    expect(fake.rejectedCalls()).toEqual([]);
    fake.sendText(ALICE, "I'm back");
    await bot.api.sendMessage(ALICE.id, "welcome back");
  });
});
