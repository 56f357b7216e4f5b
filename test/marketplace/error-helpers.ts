import { errorFromResponse } from "#src/marketplace/errors";

export { MarketplaceError, extractErrorCode, kindFor } from "#src/marketplace/index";

/** An error as the client would build it for POST /api/v1/orders answering `status` with `body`. */
export function errorFromResponseForTest(status: number, body: unknown) {
  return errorFromResponse({
    method: "POST",
    path: "/api/v1/orders",
    status,
    bodyText: typeof body === "string" ? body : JSON.stringify(body),
  });
}
