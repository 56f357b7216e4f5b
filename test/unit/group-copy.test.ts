import { join } from "node:path";
import { InlineKeyboard } from "grammy";
import { describe, expect, it } from "vitest";
import { LocaleBundles, translatorFor } from "#src/chat/i18n";
import { isSpendingButton } from "#src/chat/alerts";
import { BUY_AGAIN, CARD_CONFIRM, GROUP_RULE, MAIN_MENU, RULE_RESUME, WATCH_BUY } from "#src/chat/callback-data";
import { groupCopy } from "#src/chat/group-alerts";
import { projectRoot } from "#src/paths";

const tr = translatorFor(LocaleBundles.load(join(projectRoot(), "locales")), "en");

describe("a group's copy of an alert", () => {
  it("names the owner first (escaped) and keeps no button but Resume, which becomes the group's", () => {
    const keyboard = new InlineKeyboard()
      .text("💳 Top up", MAIN_MENU.data("topup"))
      .text("▶️ Resume", RULE_RESUME.data("AbCdEfGhIj"))
      .row()
      .text("🛒 Buy now", WATCH_BUY.data("watch00001"))
      .text("Buy again", BUY_AGAIN.data("ref0000001"))
      .text("✅ Confirm", CARD_CONFIRM.data("card000001"))
      .row()
      .text("Something added later", "zz:new")
      .url("Docs", "https://example.org");
    const copy = groupCopy(
      {
        method: "sendMessage",
        params: { text: "⏸ Rule <code>12345678</code> paused", parse_mode: "HTML", reply_markup: keyboard },
      },
      "Ann <&> Co",
      tr,
    );
    expect(copy.params.text).toBe("👤 <b>Ann &lt;&amp;&gt; Co</b>\n⏸ Rule <code>12345678</code> paused");
    const kept = (copy.params.reply_markup as InlineKeyboard).inline_keyboard.flat();
    expect(kept).toEqual([{ text: "▶️ Resume", callback_data: GROUP_RULE.data("resume", "AbCdEfGhIj") }]);
    for (const button of kept)
      expect(isSpendingButton((button as { callback_data: string }).callback_data)).toBe(false);
  });

  it("leaves no keyboard when nothing is kept, and the private payload untouched", () => {
    const params = {
      text: "✅ Order filled",
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("Buy again", BUY_AGAIN.data("ref0000001")),
    };
    const copy = groupCopy({ method: "sendMessage", params }, "Bo", tr);
    expect(copy.params.reply_markup).toBeUndefined();
    expect(params.text).toBe("✅ Order filled");
    expect(params.reply_markup.inline_keyboard.flat()).toHaveLength(1);
  });
});
