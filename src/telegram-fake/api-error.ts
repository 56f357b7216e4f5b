/** Why a call failed: Telegram's own rule, flood control, or a fault a test injected. */
export type FailureKind = "rejected" | "throttled" | "fault";

/** Thrown by method handlers; becomes Telegram's `{ ok: false, error_code, description }`. */
export class TelegramApiError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly kind: FailureKind = "rejected",
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

export function badRequest(reason: string): TelegramApiError {
  return new TelegramApiError(400, `Bad Request: ${reason}`);
}
