import { Composer } from "grammy";
import type { BotContext } from "../context";
import type { FlowRegistry } from "../flows";
import type { CardKinds } from "./cards";
import type { MenuActions } from "./start";

export function rulesFeature(_flows: FlowRegistry, _menu: MenuActions, _cards: CardKinds): Composer<BotContext> {
  return new Composer<BotContext>();
}
