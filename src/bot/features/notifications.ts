import { Composer } from "grammy";
import type { BotContext } from "../context";
import type { MenuActions } from "./start";

export function notificationsFeature(_menu: MenuActions): Composer<BotContext> {
  return new Composer<BotContext>();
}
