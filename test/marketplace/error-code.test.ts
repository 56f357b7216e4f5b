import { describe, expect, it } from "vitest";
import { MarketplaceError, errorFromResponseForTest, extractErrorCode, kindFor } from "./error-helpers";
import { errorFromResponse } from "#src/marketplace/errors";

const CODES = ["wallet.insufficient_balance", "api_key.insufficient_scope", "api_key.spend_limit_exceeded"] as const;

/** Every placement the marketplace might use for a code. */
const PLACEMENTS: [string, (code: string) => Record<string, unknown>][] = [
  ["code field", (code) => ({ code, title: "Payment Required" })],
  ["bare type", (code) => ({ type: code, title: "Forbidden" })],
  ["type URI", (code) => ({ type: `https://marketplace.example.com/errors/${code}`, title: "Forbidden" })],
  ["type URI with trailing slash", (code) => ({ type: `https://marketplace.example.com/errors/${code}/` })],
  ["type URI fragment", (code) => ({ type: `https://marketplace.example.com/problems#${code}` })],
  ["type URN", (code) => ({ type: `urn:problem-type:${code}` })],
  ["type relative path", (code) => ({ type: `/errors/${code}` })],
  ["bare title", (code) => ({ type: "about:blank", title: code })],
  ["bare detail", (code) => ({ title: "Error", detail: code })],
  ["detail sentence", (code) => ({ title: "Error", detail: `The request failed: ${code}.` })],
  [
    "detail sentence, code mid-sentence",
    (code) => ({ detail: `Refused (${code}) by the marketplace, see https://example.com/help` }),
  ],
  ["title sentence", (code) => ({ title: `Error ${code} occurred` })],
  ["detail with key=value", (code) => ({ detail: `code=${code}` })],
  ["upper case", (code) => ({ code: code.toUpperCase() })],
];

describe("extractErrorCode", () => {
  for (const code of CODES) {
    it.each(PLACEMENTS)(`finds ${code} in a %s`, (_, body) => {
      expect(extractErrorCode(body(code))).toBe(code);
    });
  }

  it.each([
    ["an unknown dotted code field", { code: "order.not_found" }, "order.not_found"],
    ["an undotted code field", { code: "insufficient_balance" }, "insufficient_balance"],
    [
      "an unknown code at the end of a URI",
      { type: "https://x.example/errors/automation.already_cancelled" },
      "automation.already_cancelled",
    ],
    [
      "an unknown code in a sentence",
      { detail: "Rule is final (automation.already_cancelled)." },
      "automation.already_cancelled",
    ],
    ["a bare dotted word without underscore", { type: "order.failed" }, "order.failed"],
  ])("finds %s", (_, body, expected) => {
    expect(extractErrorCode(body)).toBe(expected);
  });

  it.each([
    ["an empty body", {}],
    [
      "a plain RFC 7807 body",
      { type: "https://tools.ietf.org/html/rfc9110#section-15.5.5", title: "Not Found", status: 404 },
    ],
    ["about:blank", { type: "about:blank", title: "Bad Request" }],
    ["a host name in a sentence", { detail: "Contact support at help.example.com for details." }],
    ["an abbreviation", { detail: "Use a valid duration, e.g. 1h." }],
    ["a version number", { detail: "Requires API v1.2" }],
    ["non-string fields", { code: 42, type: null, title: ["x"], detail: { a: 1 } }],
  ])("finds nothing in %s", (_, body) => {
    expect(extractErrorCode(body)).toBeUndefined();
  });

  it("prefers a known code over an unknown one, wherever each sits", () => {
    expect(extractErrorCode({ code: "payment.failed_generic", detail: "wallet.insufficient_balance" })).toBe(
      "wallet.insufficient_balance",
    );
  });

  it("takes the code field before type, title and detail among unknown codes", () => {
    expect(extractErrorCode({ code: "first.one_code", type: "second.two_code", detail: "third.three_code" })).toBe(
      "first.one_code",
    );
  });
});

describe("kindFor", () => {
  it.each([
    [400, undefined, "bad_request"],
    [401, undefined, "unauthorized"],
    [402, undefined, "insufficient_balance"],
    [402, "wallet.insufficient_balance", "insufficient_balance"],
    [400, "wallet.insufficient_balance", "insufficient_balance"],
    [403, "api_key.insufficient_scope", "insufficient_scope"],
    [403, "api_key.spend_limit_exceeded", "spend_limit"],
    [403, undefined, "forbidden"],
    [403, "account.locked_out", "forbidden"],
    [404, undefined, "not_found"],
    [409, undefined, "conflict"],
    [422, undefined, "unprocessable"],
    [429, undefined, "rate_limited"],
    [502, undefined, "provider_failed"],
    [500, undefined, "server"],
    [503, undefined, "server"],
    [504, undefined, "server"],
    [418, undefined, "http"],
    [302, undefined, "http"],
  ] as const)("HTTP %i with code %s is %s", (status, code, kind) => {
    expect(kindFor(status, code)).toBe(kind);
  });
});

describe("errors built from responses", () => {
  it("a 502 is the provider's failure (balance refunded) only on placing an order; elsewhere it is a server error", () => {
    const at = (method: string, path: string) =>
      errorFromResponse({ method, path, status: 502, bodyText: "<html>Bad Gateway</html>" }).kind;
    expect(at("POST", "/api/v1/orders")).toBe("provider_failed");
    expect(at("GET", "/api/v1/wallet/balance")).toBe("server");
    expect(at("GET", "/api/v1/orders")).toBe("server");
    expect(at("POST", "/api/v1/automations")).toBe("server");
    expect(at("POST", "/api/v1/orders/preview")).toBe("server");
  });

  it("uses detail, then title, and keeps the code", () => {
    const error = errorFromResponseForTest(403, {
      type: "https://x.example/errors/api_key.spend_limit_exceeded",
      title: "Forbidden",
      detail: "Daily limit reached",
    });
    expect(error).toBeInstanceOf(MarketplaceError);
    expect(error).toMatchObject({
      kind: "spend_limit",
      status: 403,
      code: "api_key.spend_limit_exceeded",
      detail: "Daily limit reached",
      method: "POST",
      path: "/api/v1/orders",
    });
    expect(errorFromResponseForTest(404, { title: "Not Found" }).detail).toBe("Not Found");
  });

  it("summarises validation errors when there is no detail", () => {
    const error = errorFromResponseForTest(400, {
      title: "One or more validation errors occurred.",
      errors: { volume: ["must be at least 65000"] },
    });
    expect(error.detail).toBe("volume: must be at least 65000");
  });

  it("classifies a non-JSON error body by status alone", () => {
    const error = errorFromResponseForTest(503, "<html>Service Unavailable</html>");
    expect(error).toMatchObject({ kind: "server", status: 503 });
    expect(error.code).toBeUndefined();
  });
});
