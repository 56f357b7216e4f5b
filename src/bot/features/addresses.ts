import { Composer, InlineKeyboard } from "grammy";
import { findAddress, recentAddresses, removeAddress, setAddressLabel, type SavedAddress } from "../../db/repos/addresses";
import { refFor, resolveRef } from "../../db/repos/callback-refs";
import type { BotContext } from "../context";
import { editInPlace } from "../edit-in-place";
import { endFlow, startFlow, type FlowRegistry } from "../flows";
import { code, escapeHtml, shortAddress } from "../html";
import { checkTronAddress, looksLikeAddress } from "../../input/address";

/** Labels are short names for button texts and lists; longer ones are refused, not cut. */
export const LABEL_MAX = 32;

/** The text of an address button: the label when there is one, the shortened address always. */
export function addressButtonLabel(saved: Pick<SavedAddress, "address" | "label">): string {
  return saved.label ? `${saved.label} (${shortAddress(saved.address)})` : shortAddress(saved.address);
}

/**
 * A typed label, tidied: control characters and repeated spaces go; "-" clears the label.
 * Direction overrides and isolates go too: shown before an address, they could turn it around.
 * A label with nothing visible (only zero-width or format characters) is refused.
 */
export function readLabel(input: string): { ok: true; label: string | null } | { ok: false } {
  const label = input
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (label === "-") return { ok: true, label: null };
  if (label.length === 0 || label.length > LABEL_MAX || !/[^\s\p{Cf}]/u.test(label)) return { ok: false };
  return { ok: true, label };
}

/**
 * The saved address behind an address button's answer ("@<reference>"), or undefined. Own keys
 * only: "@toString" or "@__proto__" typed at the address step must not find a built-in.
 */
export function offeredAddress(offered: Record<string, string> | undefined, input: string): string | undefined {
  if (!offered || !input.startsWith("@")) return undefined;
  const reference = input.slice(1);
  const address = Object.hasOwn(offered, reference) ? offered[reference] : undefined;
  return typeof address === "string" ? address : undefined;
}

/** An address answer or argument, checked locally before any call: a saved address's button or a typed T… address. */
export function readAddress(ctx: BotContext, input: string, offered?: Record<string, string>): { ok: true; value: string } | { ok: false; message: string } {
  const check = checkTronAddress(offeredAddress(offered, input) ?? input);
  return check.ok ? { ok: true, value: check.address } : { ok: false, message: ctx.tr(`input-address-${check.reason}`) };
}

/**
 * The explanation for the one-line argument that reads as an address, when it is not a valid
 * one; null otherwise. Commands call this before reading any options, so a bad address costs
 * no marketplace call.
 */
export function badAddressArgument(ctx: BotContext, tokens: readonly string[]): string | null {
  const token = tokens.find(looksLikeAddress);
  if (token === undefined) return null;
  const check = readAddress(ctx, token);
  return check.ok ? null : check.message;
}

/** /addresses: the address book (last used first), each with a label and a remove button. */
export function addressesFeature(flows: FlowRegistry): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  async function view(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard }> {
    const saved = await recentAddresses(ctx.deps.db, ctx.account.telegram_id, 20);
    const keyboard = new InlineKeyboard();
    if (saved.length === 0) return { text: ctx.tr("addresses-empty"), keyboard };
    const lines = [ctx.tr("addresses-title")];
    for (const entry of saved) {
      lines.push(entry.label ? `• <b>${escapeHtml(entry.label)}</b> ${code(entry.address)}` : `• ${code(entry.address)}`);
      const ref = await refFor(ctx.deps.db, ctx.account.telegram_id, entry.address, ctx.deps.now());
      keyboard.text(`✏️ ${addressButtonLabel(entry)}`, `ad:l:${ref}`).text(`🗑 ${shortAddress(entry.address)}`, `ad:x:${ref}`).row();
    }
    return { text: lines.join("\n"), keyboard };
  }

  async function showList(ctx: BotContext): Promise<void> {
    const { text, keyboard } = await view(ctx);
    await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
  }

  composer.command("addresses", showList);

  composer.callbackQuery(/^ad:x:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const address = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    if (!address) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await removeAddress(ctx.deps.db, ctx.account.telegram_id, address);
    const { text, keyboard } = await view(ctx);
    await editInPlace(ctx, text, keyboard);
  });

  // The label arrives as the next text message, through the flow router.
  composer.callbackQuery(/^ad:l:([A-Za-z0-9_-]{10})$/, async (ctx) => {
    const address = await resolveRef(ctx.deps.db, ctx.account.telegram_id, ctx.match[1]!);
    if (!address || !(await findAddress(ctx.deps.db, ctx.account.telegram_id, address))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await startFlow(ctx, "address-label", "label", { address });
    await ctx.reply([ctx.tr("address-label-ask", { max: String(LABEL_MAX) }, { address: code(address) }), "", ctx.tr("ask-cancel-hint")].join("\n"), { parse_mode: "HTML" });
  });

  flows.set("address-label", {
    async answer(ctx, state, input) {
      const address = String(state.data.address);
      const read = readLabel(input);
      if (!read.ok) {
        await ctx.reply(ctx.tr("address-label-bad", { max: String(LABEL_MAX) }), { parse_mode: "HTML" });
        return;
      }
      await endFlow(ctx);
      const saved = await setAddressLabel(ctx.deps.db, ctx.account.telegram_id, address, read.label);
      if (!saved) {
        await ctx.reply(ctx.tr("address-label-gone"), { parse_mode: "HTML" });
        return;
      }
      await ctx.reply(ctx.tr(read.label ? "address-label-saved" : "address-label-cleared"), { parse_mode: "HTML" });
      await showList(ctx);
    },
  });

  return composer;
}
