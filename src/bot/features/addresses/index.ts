import { type Composer, type Context, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { ADDRESS_LABEL, ADDRESS_REMOVE } from "#src/chat/callback-data";
import {
  findAddress,
  recentAddresses,
  removeAddress,
  setAddressLabel,
  type SavedAddress,
} from "#src/db/repos/addresses";
import { refFor, resolveRef } from "#src/db/repos/callback-refs";
import type { BotContext } from "#src/bot/context";
import { editInPlace } from "#src/bot/edit-in-place";
import { enterFlow } from "#src/bot/guided/install";
import { answer, markAsked, sendQuestion, type AnswerButton, type Checked, type Guided } from "#src/bot/guided/steps";
import { code, escapeHtml, shortAddress } from "#src/chat/html";
import { checkTronAddress, looksLikeAddress } from "#src/input/address";

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
/**
 * The address step's buttons: the user's recent saved addresses, each behind a short reference
 * (callback data never carries an address). Returns the rows and the references they stand for.
 */
export async function savedAddressOffers(
  ctx: BotContext,
  telegramId: number,
): Promise<{ offered: Record<string, string>; rows: AnswerButton[][] }> {
  const offered: Record<string, string> = {};
  const rows: AnswerButton[][] = [];
  for (const saved of await recentAddresses(ctx.deps.db, telegramId, 4)) {
    const ref = await refFor(ctx.deps.db, telegramId, saved.address, ctx.deps.now());
    offered[ref] = saved.address;
    rows.push([{ label: addressButtonLabel(saved), value: `@${ref}` }]);
  }
  return { offered, rows };
}

export function readAddress(
  ctx: BotContext,
  input: string,
  offered?: Record<string, string>,
): { ok: true; value: string } | { ok: false; message: string } {
  const check = checkTronAddress(offeredAddress(offered, input) ?? input);
  return check.ok
    ? { ok: true, value: check.address }
    : { ok: false, message: ctx.tr(`input-address-${check.reason}`) };
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

/** The address book (last used first): each address with a label button and a remove button. */
async function addressBook(ctx: BotContext): Promise<{ text: string; keyboard: InlineKeyboard }> {
  const saved = await recentAddresses(ctx.deps.db, ctx.account.telegram_id, 20);
  const keyboard = new InlineKeyboard();
  if (saved.length === 0) return { text: ctx.tr("addresses-empty"), keyboard };
  const lines = [ctx.tr("addresses-title")];
  for (const entry of saved) {
    lines.push(entry.label ? `• <b>${escapeHtml(entry.label)}</b> ${code(entry.address)}` : `• ${code(entry.address)}`);
    const ref = await refFor(ctx.deps.db, ctx.account.telegram_id, entry.address, ctx.deps.now());
    keyboard
      .text(`✏️ ${addressButtonLabel(entry)}`, ADDRESS_LABEL.data(ref))
      .text(`🗑 ${shortAddress(entry.address)}`, ADDRESS_REMOVE.data(ref))
      .row();
  }
  return { text: lines.join("\n"), keyboard };
}

async function showAddressBook(ctx: BotContext): Promise<void> {
  const { text, keyboard } = await addressBook(ctx);
  await ctx.reply(text, { parse_mode: "HTML", reply_markup: keyboard });
}

/** The label step after ✏️: one typed answer, then the label is saved and the address book shown again. */
export async function addressLabelConversation(conversation: Guided, _ctx: Context, address: string): Promise<void> {
  const asked = await conversation.external(async (ctx) => {
    const asked = markAsked(ctx, "address-label", "label");
    await sendQuestion(
      ctx,
      asked,
      [
        ctx.tr("address-label-ask", { max: String(LABEL_MAX) }, { address: code(address) }),
        "",
        ctx.tr("ask-cancel-hint"),
      ].join("\n"),
    );
    return asked;
  });
  const label = await answer(
    conversation,
    "address-label",
    asked,
    async (ctx, input): Promise<Checked<string | null>> => {
      const read = readLabel(input);
      return read.ok
        ? { ok: true, value: read.label }
        : { ok: false, message: ctx.tr("address-label-bad", { max: String(LABEL_MAX) }) };
    },
  );
  await conversation.external(async (ctx) => {
    const saved = await setAddressLabel(ctx.deps.db, ctx.account.telegram_id, address, label);
    if (!saved) {
      await ctx.reply(ctx.tr("address-label-gone"), { parse_mode: "HTML" });
      return;
    }
    await ctx.reply(ctx.tr(label ? "address-label-saved" : "address-label-cleared"), { parse_mode: "HTML" });
    await showAddressBook(ctx);
  });
}

/** /addresses: the address book, with ✏️ (a guided label step) and 🗑 per address. */
export function addressesFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("addresses", showAddressBook);

  composer.callbackQuery(ADDRESS_REMOVE.pattern, async (ctx) => {
    const ref = ADDRESS_REMOVE.parse(ctx.callbackQuery.data);
    const address = ref === null ? undefined : await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
    if (!address) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await removeAddress(ctx.deps.db, ctx.account.telegram_id, address);
    const { text, keyboard } = await addressBook(ctx);
    await editInPlace(ctx, text, keyboard);
  });

  composer.callbackQuery(ADDRESS_LABEL.pattern, async (ctx) => {
    const ref = ADDRESS_LABEL.parse(ctx.callbackQuery.data);
    const address = ref === null ? undefined : await resolveRef(ctx.deps.db, ctx.account.telegram_id, ref);
    if (!address || !(await findAddress(ctx.deps.db, ctx.account.telegram_id, address))) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await enterFlow(ctx, "address-label", address);
  });

  return composer;
}
