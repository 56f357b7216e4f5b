import { badRequest } from "../api-error";
import { commandsKey, readCommandScope, type BotCommand } from "../fake-state";
import type { MethodContext, MethodHandler } from "../method-context";
import { readObject, readString } from "../param-readers";
import type { Params } from "../request-params";
import { validateWebApp } from "../reply-markup";

function key(context: MethodContext, params: Params): string {
  const languageCode = readString(params, "language_code");
  if (languageCode !== undefined && languageCode !== "" && !/^[a-z]{2}$/.test(languageCode)) {
    throw badRequest("invalid language code specified");
  }
  const scope = readObject(params, "scope", "can't parse BotCommandScope JSON object");
  // A chat's own menu needs a chat the bot knows, as on Telegram.
  const { chatId } = readCommandScope(scope);
  if (typeof chatId === "number") context.state.requireChat(chatId);
  return commandsKey(scope, languageCode || undefined);
}

function readCommands(params: Params): BotCommand[] {
  const commands = readObject(params, "commands", "can't parse commands JSON object");
  if (!Array.isArray(commands)) throw badRequest("can't parse commands JSON object");
  if (commands.length > 100) throw badRequest("too many commands specified");
  return commands.map((entry: unknown) => {
    const { command, description } = (entry ?? {}) as Record<string, unknown>;
    if (typeof command !== "string" || !/^[a-z0-9_]{1,32}$/.test(command)) throw badRequest("BOT_COMMAND_INVALID");
    if (typeof description !== "string" || description.length < 1 || description.length > 256) {
      throw badRequest("BOT_COMMAND_DESCRIPTION_INVALID");
    }
    return { command, description };
  });
}

export const setMyCommands: MethodHandler = (context, params) => {
  const commands = readCommands(params);
  context.state.commands.set(key(context, params), commands);
  return true;
};

export const deleteMyCommands: MethodHandler = (context, params) => {
  context.state.commands.delete(key(context, params));
  return true;
};

export const getMyCommands: MethodHandler = (context, params) => context.state.commands.get(key(context, params)) ?? [];

export const setChatMenuButton: MethodHandler = (context, params) => {
  const chatId = readString(params, "chat_id") ?? "";
  if (chatId) context.state.requireChat(Number(chatId));
  const button = readObject(params, "menu_button", "can't parse menu button JSON object") ?? { type: "default" };
  const type = (button as { type?: unknown }).type;
  if (!["default", "commands", "web_app"].includes(type as string))
    throw badRequest("can't parse menu button JSON object");
  if (type === "web_app") {
    const text = (button as { text?: unknown }).text;
    if (typeof text !== "string" || text.trim() === "")
      throw badRequest("can't parse menu button: the web_app button needs a text");
    validateWebApp((button as { web_app?: unknown }).web_app);
  }
  context.state.menuButtons.set(chatId, button);
  return true;
};

export const getChatMenuButton: MethodHandler = (context, params) =>
  context.state.menuButtons.get(readString(params, "chat_id") ?? "") ?? { type: "default" };

function languageOf(params: Params): string {
  const languageCode = readString(params, "language_code") ?? "";
  if (languageCode !== "" && !/^[a-z]{2}$/.test(languageCode)) throw badRequest("invalid language code specified");
  return languageCode;
}

/** setMyDescription / setMyShortDescription: at most 512 / 120 characters; empty removes it for that language. */
function profileText(
  store: (context: MethodContext) => Map<string, string>,
  param: string,
  max: number,
  tooLong: string,
): { set: MethodHandler; get: MethodHandler } {
  return {
    set: (context, params) => {
      const language = languageOf(params);
      const text = readString(params, param) ?? "";
      if (text.length > max) throw badRequest(tooLong);
      if (text === "") store(context).delete(language);
      else store(context).set(language, text);
      return true;
    },
    get: (context, params) => {
      const language = languageOf(params);
      return { [param]: store(context).get(language) ?? (language === "" ? "" : (store(context).get("") ?? "")) };
    },
  };
}

const description = profileText((context) => context.state.descriptions, "description", 512, "BOT_DESCRIPTION_INVALID");
const shortDescription = profileText(
  (context) => context.state.shortDescriptions,
  "short_description",
  120,
  "BOT_SHORT_DESCRIPTION_INVALID",
);
export const setMyDescription = description.set;
export const getMyDescription = description.get;
export const setMyShortDescription = shortDescription.set;
export const getMyShortDescription = shortDescription.get;
