/**
 * /_sandbox/*: every SandboxControl method as POST /_sandbox/<kebab-case-name> with a JSON body
 * of its named arguments, plus GET /_sandbox/demo and GET /_sandbox/state. No authentication:
 * this is a local test double.
 */
import { Hono } from "hono";
import { SandboxError } from "../problem";
import { dumpState } from "../state-dump";
import type { SandboxControl } from "../types";
import type { World } from "../records";

/** Methods that take one bare argument; over HTTP it travels as this named field. */
const POSITIONAL: Partial<Record<keyof SandboxControl, string>> = {
  accountIdForKey: "apiKey",
  getBalance: "accountId",
  listOrders: "accountId",
  listRules: "accountId",
  ledger: "accountId",
  listNotifications: "accountId",
};

function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export function createControlApp(
  world: World,
  control: SandboxControl,
  demo: { accountId: string; apiKey: string },
): Hono {
  const app = new Hono();

  app.get("/demo", (c) => c.json(demo));
  app.get("/state", (c) => c.json(dumpState(world, c.req.query("accountId") || undefined) as object));

  for (const name of Object.keys(control) as (keyof SandboxControl)[]) {
    app.post(`/${kebabCase(name)}`, async (c) => {
      const text = await c.req.text();
      let body: unknown = {};
      try {
        if (text.trim() !== "") body = JSON.parse(text);
      } catch {
        throw new SandboxError(400, "request.malformed_json", "Malformed JSON", "the request body is not valid JSON");
      }
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw new SandboxError(400, "control.bad_argument", "Bad argument", "the body must be a JSON object");
      const field = POSITIONAL[name];
      const argument = field ? (body as Record<string, unknown>)[field] : body;
      const result = (control[name] as (argument: unknown) => unknown)(argument);
      if (name === "accountIdForKey") return c.json({ accountId: result });
      return c.json((result ?? { ok: true }) as object);
    });
  }

  app.onError((error, c) => {
    if (error instanceof SandboxError) return c.json({ error: error.message, code: error.code }, error.status as 400);
    return c.json({ error: error.message }, 500);
  });
  return app;
}
