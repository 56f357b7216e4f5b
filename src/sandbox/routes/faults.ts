/**
 * Fault injection for client contract tests: the next matching /api/v1 requests answer with a
 * canned status, body and headers, or are delayed (real time, so client timeouts can fire)
 * before the real handler runs.
 */
import type { MiddlewareHandler } from "hono";
import type { FaultRecord, World } from "../records";

function matches(fault: FaultRecord, method: string, path: string): boolean {
  if (fault.method && fault.method.toUpperCase() !== method) return false;
  if (!fault.pathPrefix) return true;
  return (
    path.startsWith(fault.pathPrefix) ||
    path.startsWith(`/api/v1${fault.pathPrefix.startsWith("/") ? "" : "/"}${fault.pathPrefix}`)
  );
}

function cannedResponse(fault: FaultRecord, status: number): Response {
  const headers = new Headers(fault.headers);
  // 204, 205 and 304 may not carry a body.
  if ([204, 205, 304].includes(status)) return new Response(null, { status, headers });
  let body: string;
  if (fault.rawBody !== undefined) {
    body = fault.rawBody;
    if (!headers.has("Content-Type")) headers.set("Content-Type", "text/plain; charset=utf-8");
  } else {
    body = JSON.stringify(
      fault.body ?? {
        type: "about:blank",
        title: "Injected fault",
        status,
        detail: "fault injected by the sandbox",
        instance: null,
      },
    );
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  return new Response(body, { status, headers });
}

export function faultInjection(world: World): MiddlewareHandler {
  return async (c, next) => {
    const index = world.faults.findIndex((fault) => matches(fault, c.req.method, c.req.path));
    if (index === -1) return next();
    const fault = world.faults[index]!;
    fault.remaining -= 1;
    if (fault.remaining <= 0) world.faults.splice(index, 1);
    if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    const status = fault.status ?? (fault.body !== undefined || fault.rawBody !== undefined ? 500 : undefined);
    if (status === undefined) return next();
    return cannedResponse(fault, status);
  };
}
