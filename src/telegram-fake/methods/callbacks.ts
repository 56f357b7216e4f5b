import { badRequest } from "../api-error";
import type { MethodHandler } from "../method-context";
import { readBoolean, readString } from "../param-readers";
import type { CallbackAnswer } from "../types";

const QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid";
const QUERY_LIFETIME_MS = 15 * 60 * 1000;

export const answerCallbackQuery: MethodHandler = (context, params) => {
  const id = readString(params, "callback_query_id") ?? "";
  const query = context.state.callbackQueries.get(id);
  if (!query || query.answered || context.now() - query.createdAt > QUERY_LIFETIME_MS) throw badRequest(QUERY_INVALID);
  const text = readString(params, "text");
  if (text !== undefined && text.length > 200) throw badRequest("MESSAGE_TOO_LONG");
  const url = readString(params, "url");
  query.answered = true;
  const answer: CallbackAnswer = { callbackQueryId: id };
  if (text !== undefined) answer.text = text;
  if (readBoolean(params, "show_alert")) answer.showAlert = true;
  if (url !== undefined) answer.url = url;
  context.callbackAnswers.push(answer);
  context.events.emit({
    kind: "callback_answer",
    ...(query.chatId !== undefined ? { chatId: query.chatId } : {}),
    callbackAnswer: { ...answer },
  });
  return true;
};
