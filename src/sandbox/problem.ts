/**
 * Errors as problem JSON ({type, title, status, detail, instance}). The spec leaves open where
 * the machine code travels, so the placement is switchable to exercise every client parser.
 */
import type { ErrorCodePlacement } from "./types";

export const ERROR_TYPE_BASE = "https://docs.marketplace.example/errors/";

/** Thrown by domain operations; the API turns it into problem JSON, the control routes into {error}. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
  ) {
    super(detail);
    this.name = "SandboxError";
  }
}

export function problemBody(
  placement: ErrorCodePlacement,
  error: SandboxError,
  instance: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: "about:blank",
    title: error.title,
    status: error.status,
    detail: error.message,
    instance,
  };
  switch (placement) {
    case "code":
      body.code = error.code;
      break;
    case "type":
      body.type = error.code;
      break;
    case "type-uri":
      body.type = ERROR_TYPE_BASE + error.code;
      break;
    case "title":
      body.title = error.code;
      break;
    case "detail":
      body.detail = `${error.message} (code: ${error.code})`;
      break;
  }
  return body;
}

export function problemResponse(placement: ErrorCodePlacement, error: SandboxError, instance: string): Response {
  return new Response(JSON.stringify(problemBody(placement, error, instance)), {
    status: error.status,
    headers: { "Content-Type": "application/problem+json" },
  });
}

export function validationError(status: 400 | 422, detail: string): SandboxError {
  return new SandboxError(status, "request.validation_failed", "Validation failed", detail);
}

export function notFound(what: string, id: string): SandboxError {
  return new SandboxError(404, `${what}.not_found`, "Not found", `no ${what} ${JSON.stringify(id)} for this account`);
}
