import { Composer, InlineKeyboard } from "grammy";
import { recentAddresses, removeAddress } from "../../db/repos/addresses";
import { refFor, resolveRef } from "../../db/repos/callback-refs";
import type { BotContext } from "../context";
import { code, shortAddress } from "../html";

/** /addresses: the address book (last used first), each with a remove button. */
export function addressesFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  async function view(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard }> {
    const saved = await recentAddresses(ctx.deps.db, ctx.account.telegram_id, 20);
    const keyboard = new InlineKeyboard();
    if (saved.length === 0) return { text: ctx.tr("addresses-empty"), keyboard };
    const lines = [ctx.tr("addresses-title")];
    for (const entry of saved) {
      lines.push(`• ${code(entry.address)}`);
      keyboard.text(`🗑 ${shortAddress(entry.address)}`, `ad:x:${await refFor(ctx.deps.db, ctx.account.telegram_id, entry.address, ctx.deps.now())}`).row();
    }
    return { text: lines.join("\n"), keyboard };
  }

  composer.command("addresses", async (ctx) => {
    const { text, keyboard } = await view(ctx);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  composer.callbackQuery(/^ad:x:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const address = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    await ctx.answerCallbackQuery();
    if (address) await removeAddress(ctx.deps.db, ctx.account.telegram_id, address);
    const { text, keyboard } = await view(ctx);
    await ctx.editMessageText(text, { parse_mode: "HTML", reply_markup: keyboard });
  });

  return composer;
}
