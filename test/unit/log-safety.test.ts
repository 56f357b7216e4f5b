import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BotError, GrammyError } from "grammy";
import { createLogger, SecretScrubber, wantsPrettyLogs } from "#src/logger";
import { sanitizeLogValue, serializeError } from "#src/log-sanitize";

function capture(scrubber = new SecretScrubber()) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { logger: createLogger({ level: "debug", scrubber, destination }), text: () => lines.join("") };
}

class Context {
  constructor(
    readonly update: { update_id: number; message: { text: string } },
    readonly deps: { dataKey: Buffer; secret: string },
  ) {}
}

describe("what a log line may hold", () => {
  const dataKey = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));

  it("a BotError is its message, stack, update id and the failed method, never its context", () => {
    const refused = new GrammyError(
      "Call to 'sendMessage' failed!",
      { ok: false, error_code: 400, description: "Bad Request: chat not found" },
      "sendMessage",
      { chat_id: 1, text: "your key sk_live_secret_0123456789" },
    );
    const ctx = new Context(
      { update_id: 77, message: { text: "/connect sk_live_secret_0123456789" } },
      { dataKey, secret: "hmac-secret-value" },
    );
    const error = new BotError(refused, ctx as never);
    const { logger, text } = capture();
    logger.error({ err: error }, "update failed");
    const line = text();
    expect(line).toContain('"updateId":77');
    expect(line).toContain('"method":"sendMessage"');
    expect(line).toContain("chat not found");
    for (const leaked of ["sk_live_secret", "hmac-secret-value", '"payload"', '"ctx"'])
      expect(line).not.toContain(leaked);
    expect(line).not.toMatch(/\[\s*\d{1,3}(?:\s*,\s*\d{1,3}){31}\s*\]/);
  });

  it("binary data, class instances and deep nesting never reach a line, under any field name", () => {
    expect(
      sanitizeLogValue({
        key: dataKey,
        view: new Uint8Array(4),
        nested: { db: new Context({ update_id: 1, message: { text: "x" } }, { dataKey, secret: "s" }) },
      }),
    ).toEqual({
      key: "[binary 32 bytes]",
      view: "[binary 4 bytes]",
      nested: { db: "[Context]" },
    });
    expect(JSON.stringify(sanitizeLogValue({ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }))).toContain("[object]");
    const { logger, text } = capture();
    logger.info({ anything: { dataKey } }, "binary under an unknown name");
    expect(text()).toContain("[binary 32 bytes]");
    expect(text()).not.toMatch(/"data":\[/);
  });

  it("an error's cause chain is kept by message, and a value that is not an error is described", () => {
    const inner = new Error("connect ECONNREFUSED");
    const outer = new Error("request failed", { cause: inner });
    expect(serializeError(outer).cause?.message).toBe("connect ECONNREFUSED");
    expect(serializeError("plain text")).toEqual({ type: "string", message: "plain text" });
  });

  it("the scrubber removes a user's secret as a whole token, inside a path and after an escape", () => {
    const scrubber = new SecretScrubber();
    const token = "Abc123_def456-GHI789jklMNOpqr";
    scrubber.addUserSecret(token);
    scrubber.add("configured-secret-value");
    const { logger, text } = capture(scrubber);
    logger.info(
      {
        url: `https://bot.example/webhooks/marketplace/${token}`,
        note: `line\n${token}`,
        other: "configured-secret-value",
      },
      `token ${token}`,
    );
    expect(text()).not.toContain(token);
    expect(text()).not.toContain("configured-secret-value");
    expect(text()).toContain("/webhooks/marketplace/[redacted]");
  });

  it("prints readable lines on a terminal unless LOG_FORMAT says json", () => {
    expect(wantsPrettyLogs(undefined, true)).toBe(true);
    expect(wantsPrettyLogs(undefined, false)).toBe(false);
    expect(wantsPrettyLogs("json", true)).toBe(false);
    expect(wantsPrettyLogs("pretty", false)).toBe(true);
  });
});
