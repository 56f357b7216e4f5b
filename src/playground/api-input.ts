import type { Context } from "hono";
import type { FakeUser } from "#src/telegram-fake/index";
import { PanelError } from "./sandbox-panel";
import type { PlayUser } from "./state";

/** A request the playground's JSON interface refuses with 400 and the message. */
export class BadInput extends Error {}

export type Body = Record<string, unknown>;

/** Parses a POST body as a JSON object, runs the route and maps the errors it throws to their status. */
export async function handle(c: Context, run: (body: Body) => Promise<unknown>): Promise<Response> {
  let body: Body = {};
  if (c.req.method === "POST") {
    try {
      const parsed: unknown = await c.req.json();
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      body = parsed as Body;
    } catch {
      return c.json({ error: "the body must be a JSON object" }, 400);
    }
  }
  try {
    return c.json((await run(body)) as object);
  } catch (error) {
    if (error instanceof BadInput) return c.json({ error: error.message }, 400);
    if (error instanceof PanelError) return c.json({ error: error.message }, error.status);
    // The fake throws plain Errors for presses on missing messages or buttons.
    if (error instanceof Error && /^press/.test(error.message)) return c.json({ error: error.message }, 404);
    throw error;
  }
}

/** A user-side action of the fake; what it refuses (inline mode off, a link to another bot) is the request's fault. */
export function fakeAction<T>(act: () => T): T {
  try {
    return act();
  } catch (error) {
    if (error instanceof Error && /^(sendInlineQuery|chooseInlineResult|openDeepLink): /.test(error.message))
      throw new BadInput(error.message);
    throw error;
  }
}

/** The fake Telegram's view of a playground user. */
export function fakeUser(user: PlayUser): FakeUser {
  return { id: user.id, firstName: user.firstName, languageCode: user.languageCode };
}

export function positiveInt(value: unknown, name: string): number {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1)
    throw new BadInput(`${name} must be a positive integer`);
  return number;
}

export function userId(value: unknown): number {
  const id = positiveInt(value, "userId");
  if (id > 0xffffffffff) throw new BadInput("userId is too large");
  return id;
}

export function userChanges(body: Body): { firstName?: string; languageCode?: string } {
  const changes: { firstName?: string; languageCode?: string } = {};
  if (body.firstName !== undefined) {
    if (typeof body.firstName !== "string" || body.firstName.trim() === "" || body.firstName.length > 64)
      throw new BadInput("firstName must be 1-64 characters");
    changes.firstName = body.firstName.trim();
  }
  if (body.languageCode !== undefined) {
    if (typeof body.languageCode !== "string" || !/^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$/.test(body.languageCode))
      throw new BadInput("languageCode must look like en, ru or zh");
    changes.languageCode = body.languageCode;
  }
  return changes;
}
