import { InlineKeyboard, InputFile } from "grammy";
import { describe, expect, it } from "vitest";
import QRCode from "qrcode";
import { ALICE, apiError, world } from "./grammy-helpers";

const png = (text: string) => QRCode.toBuffer(text, { type: "png", margin: 1, scale: 2 });

describe("editMessageMedia", () => {
  it("replaces a photo, its caption and keyboard in the same message, and refuses what Telegram refuses", async () => {
    const { fake, bot } = await world();
    fake.sendText(ALICE, "/stats");
    const keyboard = new InlineKeyboard().text("7 days", "ss:7");
    const sent = await bot.api.sendPhoto(ALICE.id, new InputFile(await png("first"), "a.png"), {
      caption: "<b>First</b>",
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
    const before = fake.messages(ALICE.id).find((message) => message.messageId === sent.message_id)!;
    const firstFile = before.photo!.fileId;

    const second = await png("second, a longer text");
    await bot.api.editMessageMedia(
      ALICE.id,
      sent.message_id,
      { type: "photo", media: new InputFile(second, "b.png"), caption: "<i>Second</i>", parse_mode: "HTML" },
      { reply_markup: keyboard },
    );
    const after = fake.messages(ALICE.id).find((message) => message.messageId === sent.message_id)!;
    expect(after.edited).toBe(true);
    expect(after.photo!.fileId).not.toBe(firstFile);
    expect(Buffer.from(after.photo!.bytes).equals(second)).toBe(true);
    expect(after.caption).toBe("Second");
    expect(after.replyMarkup?.inline_keyboard[0]?.[0]?.text).toBe("7 days");

    // the same file, caption and keyboard again: not modified
    const same = await apiError(
      bot.api.editMessageMedia(
        ALICE.id,
        sent.message_id,
        { type: "photo", media: after.photo!.fileId, caption: "<i>Second</i>", parse_mode: "HTML" },
        { reply_markup: keyboard },
      ),
    );
    expect(same.description).toMatch(/message is not modified/);
    // a caption is checked like sendPhoto's
    const long = await apiError(
      bot.api.editMessageMedia(ALICE.id, sent.message_id, {
        type: "photo",
        media: new InputFile(second, "c.png"),
        caption: "x".repeat(1025),
      }),
    );
    expect(long.description).toBe("Bad Request: message caption is too long");
    // a text message has no media to replace
    const text = await bot.api.sendMessage(ALICE.id, "Nothing spent");
    const noMedia = await apiError(
      bot.api.editMessageMedia(ALICE.id, text.message_id, { type: "photo", media: new InputFile(second, "d.png") }),
    );
    expect(noMedia.description).toBe("Bad Request: there is no media in the message to edit");
    expect(fake.messages(ALICE.id).find((message) => message.messageId === text.message_id)!.photo).toBeUndefined();
  });
});
