import { badRequest } from "./api-error";
import type { Params } from "./request-params";

// Form and query bodies carry every value as a string; Telegram accepts those wherever it accepts
// numbers, booleans or JSON objects, so these readers do too.

export function readInteger(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  const number = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) throw badRequest(`field "${name}" must be of type Integer`);
  return number;
}

export function readString(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw badRequest(`field "${name}" must be of type String`);
}

export function readBoolean(params: Params, name: string): boolean {
  const value = params[name];
  return value === true || value === "true" || value === "1" || value === 1;
}

/** An object parameter, given as an object (JSON body) or as a JSON string (form bodies). */
export function readObject(params: Params, name: string, invalid: string): unknown {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest(invalid);
  }
}

export function requireChatId(params: Params): number {
  const value = params.chat_id;
  if (value === undefined || value === null || value === "") throw badRequest("chat_id is empty");
  // "@channelusername" targets a public channel or supergroup; the fake has none.
  if (typeof value === "string" && value.startsWith("@")) throw badRequest("chat not found");
  return readInteger(params, "chat_id")!;
}

export function requireMessageId(params: Params): number {
  const id = readInteger(params, "message_id");
  if (id === undefined) throw badRequest("message identifier is not specified");
  return id;
}
