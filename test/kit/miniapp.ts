import { ADDRESS_A, nextBotText, type World } from "./world";
import type { ChatMessage } from "#src/telegram-fake/index";

/** The https origin the dashboard tests give the bot, so /start and /dashboard carry the Mini App. */
export const PUBLIC_URL = "https://bot.example.test";

type User = ReturnType<World["user"]>;

/** Creates an auto-refill rule in the chat; returns the rule card the chat shows. */
export async function ruleInChat(user: User): Promise<ChatMessage> {
  user.send(`/refill ${ADDRESS_A} 30k 65k 1h`);
  await nextBotText(user, (text) => text.includes("Confirm the new rule"));
  user.press("✅ Confirm");
  return nextBotText(user, (text) => text.includes("Rule created"));
}

/** The Bot API edits of one message's text, in order. */
export const editsOf = (world: World, chatId: number, messageId: number) =>
  world.fake.calls.filter(
    (call) =>
      call.ok &&
      call.method === "editMessageText" &&
      Number(call.params.chat_id) === chatId &&
      Number(call.params.message_id) === messageId,
  );
