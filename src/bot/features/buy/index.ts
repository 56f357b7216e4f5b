import type { Composer, Context } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { QUOTE_BUY } from "#src/chat/callback-data";
import type { BotContext } from "#src/bot/context";
import { endFlow } from "#src/bot/flows";
import type { Guided } from "#src/bot/guided/steps";
import { replyMarketplaceError, userClient } from "#src/bot/marketplace-access";
import { pressedButtonExists } from "#src/bot/pressed-button";
import { splitArguments } from "#src/input/arguments";
import { badAddressArgument } from "../addresses";
import { sendCard, type CardKinds } from "../cards";
import {
  draftFromCommand,
  missingOrderField,
  orderLimits,
  type DraftField,
  type OrderDraft,
  type OrderLimits,
} from "../order-params";
import { collectOrder, firstOrderQuestion, startOrderFlow } from "../order-params/guided";
import type { MenuActions } from "#src/bot/context";
import { addressFromStrangeLink } from "../deep-links";
import { preview, type OrderPayload } from "./order-card";
import { ORDER_CARD } from "./place-order";

const FIELDS: DraftField[] = ["resource", "volume", "duration", "address"];

/** Bounds and durations for an order, from the options endpoint (a key is needed); null after telling the user why not. */
async function buyLimits(ctx: BotContext): Promise<OrderLimits | null> {
  const client = await userClient(ctx);
  if (!client) return null;
  try {
    return await orderLimits(ctx, client);
  } catch (error) {
    await replyMarketplaceError(ctx, error, { read: true });
    return null;
  }
}

/** The confirmation card of a complete draft, from the order preview. Creating it is all a flow does: Confirm places the order. */
async function sendOrderCard(ctx: BotContext, draft: OrderDraft): Promise<void> {
  const client = await userClient(ctx);
  if (!client) return;
  const order: OrderPayload = {
    resource: draft.resource!,
    volume: draft.volume!,
    duration: draft.duration!,
    address: draft.address!,
  };
  if (await addressFromStrangeLink(ctx, order.address)) order.fromLink = true;
  const card = await preview(ctx, client, order);
  if (card) await sendCard(ctx, "order", { ...order, totalTrx: card.totalTrx }, card.text, card.canConfirm);
}

/** /buy, guided: asks what the command did not give, then the confirmation card. */
export async function buyConversation(
  conversation: Guided,
  ctx: Context,
  start: OrderDraft,
  asked?: unknown,
): Promise<void> {
  const question = firstOrderQuestion(asked);
  const draft = await collectOrder(
    conversation,
    "buy",
    start,
    FIELDS,
    buyLimits,
    question && { entering: ctx, question },
  );
  await conversation.external((ctx) => sendOrderCard(ctx, draft));
}

/** /buy: one-line or guided, then the confirmation card from the order preview; Confirm places the order with the card's key. */
export function buyFeature(menu: MenuActions, cards: CardKinds): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  async function start(ctx: BotContext, args: string): Promise<void> {
    const client = await userClient(ctx);
    if (!client) return;
    const badAddress = badAddressArgument(ctx, splitArguments(args));
    if (badAddress) {
      await ctx.reply(badAddress, { parse_mode: "HTML" });
      return;
    }
    let limits;
    try {
      limits = await orderLimits(ctx, client);
    } catch (error) {
      return replyMarketplaceError(ctx, error, { read: true });
    }
    const read = await draftFromCommand(ctx, args, limits, FIELDS, "/buy energy 65k 1h TAddress…");
    if (!read) return;
    const { draft, problem } = read;
    if (
      missingOrderField(ctx, draft, limits, FIELDS) !== null &&
      (await startOrderFlow(ctx, "buy", draft, limits, FIELDS, problem))
    )
      return;
    await endFlow(ctx);
    await sendOrderCard(ctx, draft);
  }

  composer.command("buy", (ctx) => start(ctx, ctx.match));
  menu.register("buy", (ctx, args = "") => start(ctx, args));

  // "Buy this" under a quote: the same values, then the address step.
  composer.callbackQuery(QUOTE_BUY.pattern, async (ctx) => {
    const values = QUOTE_BUY.parse(ctx.callbackQuery.data);
    if (!values || !pressedButtonExists(ctx)) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await start(ctx, `${values.resource} ${values.volume} ${values.duration}`);
  });

  cards.set("order", ORDER_CARD);

  return composer;
}
