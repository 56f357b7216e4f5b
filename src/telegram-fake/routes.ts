import type { HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import type { Context } from "hono";
import { TelegramApiError } from "./api-error";
import type { MethodContext } from "./method-context";
import { findMethod } from "./methods";
import { paramsForRecord, readRequestParams, type Params } from "./request-params";
import type { ApiCall, DownMode } from "./types";
import type { FakeState } from "./fake-state";

export interface RouteDeps {
  token: string;
  state: FakeState;
  /** The handler context for one request. */
  methodContext(signal: AbortSignal): MethodContext;
  recordCall(call: Omit<ApiCall, "seq" | "at">): void;
  downMode(): DownMode;
}

type Answer = { ok: true; result: unknown } | { ok: false; error: TelegramApiError };

/** The Bot API over HTTP: `/bot<token>/<method>` and `/file/bot<token>/<file_path>`. */
export function createFakeTelegramApp(deps: RouteDeps): Hono {
  const app = new Hono();

  app.get("/file/:botToken/*", (c) => {
    const prefix = `/file/${c.req.param("botToken")}/`;
    const filePath = decodeURIComponent(new URL(c.req.url).pathname.slice(prefix.length));
    const file = c.req.param("botToken") === `bot${deps.token}` ? deps.state.fileByPath(filePath) : undefined;
    if (!file) return c.json({ ok: false, error_code: 404, description: "Not Found" }, 404);
    return c.body(file.bytes.slice().buffer, 200, { "content-type": "application/octet-stream" });
  });

  app.on(["GET", "POST"], "/:botToken/:method", async (c) => {
    const params = await readRequestParams(c.req.raw);
    const methodName = c.req.param("method");
    const down = deps.downMode();
    if (down) return answerDown(c, deps, down, methodName, params);
    const answer = await run(deps, c.req.param("botToken"), methodName, params, c.req.raw.signal);
    const method = findMethod(methodName)?.name ?? methodName;
    const recorded = paramsForRecord(params);
    if (answer.ok) {
      deps.recordCall({ method, params: recorded, ok: true });
      return c.json({ ok: true, result: answer.result });
    }
    const { error } = answer;
    deps.recordCall({
      method,
      params: recorded,
      ok: false,
      errorCode: error.errorCode,
      description: error.description,
      ...(error.kind === "throttled" ? { throttled: true } : {}),
      ...(error.kind === "fault" ? { injectedFault: true } : {}),
    });
    return errorResponse(error);
  });

  return app;
}

async function run(
  deps: RouteDeps,
  botToken: string,
  methodName: string,
  params: Params,
  signal: AbortSignal,
): Promise<Answer> {
  try {
    if (botToken !== `bot${deps.token}`) throw new TelegramApiError(401, "Unauthorized");
    const method = findMethod(methodName);
    if (!method) throw new TelegramApiError(404, "Not Found");
    return { ok: true, result: await method.handler(deps.methodContext(signal), params) };
  } catch (error) {
    if (error instanceof TelegramApiError) return { ok: false, error };
    // A bug in the fake: answer like a failing server and keep the reason visible in the call log.
    return { ok: false, error: new TelegramApiError(500, `Internal Server Error: ${String(error)}`) };
  }
}

function errorResponse(error: TelegramApiError): Response {
  const body = {
    ok: false,
    error_code: error.errorCode,
    description: error.description,
    ...(error.parameters ? { parameters: error.parameters } : {}),
  };
  return Response.json(body, { status: error.errorCode });
}

function answerDown(c: Context, deps: RouteDeps, mode: "refuse" | "5xx", methodName: string, params: Params): Response {
  const method = findMethod(methodName)?.name ?? methodName;
  if (mode === "5xx") {
    deps.recordCall({
      method,
      params: paramsForRecord(params),
      ok: false,
      errorCode: 502,
      description: "Bad Gateway",
      injectedFault: true,
    });
    return errorResponse(new TelegramApiError(502, "Bad Gateway"));
  }
  deps.recordCall({
    method,
    params: paramsForRecord(params),
    ok: false,
    description: "connection refused",
    injectedFault: true,
  });
  // Over a real socket, hang up so the client sees a network error; through app.request() there
  // is no socket, so answer with something that is not the Bot API.
  (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket.destroy();
  return new Response("connection refused", { status: 503 });
}
