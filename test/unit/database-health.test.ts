import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, SecretScrubber } from "#src/logger";
import { DatabaseHealth, isDatabaseUnreachable } from "#src/db/health";

const errorWith = (fields: Record<string, unknown>, message = "failed") => Object.assign(new Error(message), fields);

function capturedLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of chunk.toString().split("\n").filter(Boolean))
        lines.push(JSON.parse(line) as { level: number; msg: string });
      callback();
    },
  });
  return {
    logger: createLogger({ level: "debug", pretty: false, scrubber: new SecretScrubber(), destination }),
    lines,
  };
}

describe("the database's health", () => {
  it("tells a database that cannot be reached from a statement it refused, also when wrapped", () => {
    expect(isDatabaseUnreachable(errorWith({ code: "ECONNREFUSED" }))).toBe(true);
    expect(isDatabaseUnreachable(errorWith({ code: "ECONNRESET" }))).toBe(true);
    expect(
      isDatabaseUnreachable(errorWith({ code: "57P01" }, "terminating connection due to administrator command")),
    ).toBe(true);
    expect(isDatabaseUnreachable(errorWith({ code: "08006" }))).toBe(true);
    expect(isDatabaseUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnreachable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    // grammY's BotError keeps the handler's error in `error`; others chain it in `cause`.
    expect(isDatabaseUnreachable({ error: errorWith({ code: "ECONNREFUSED" }) })).toBe(true);
    expect(isDatabaseUnreachable(new Error("outer", { cause: new Error("Connection terminated unexpectedly") }))).toBe(
      true,
    );

    expect(isDatabaseUnreachable(errorWith({ code: "23505" }, "duplicate key value violates unique constraint"))).toBe(
      false,
    );
    expect(isDatabaseUnreachable(errorWith({ code: "40001" }, "could not serialize access"))).toBe(false);
    expect(isDatabaseUnreachable(new Error("something else"))).toBe(false);
    expect(isDatabaseUnreachable(null)).toBe(false);
    expect(isDatabaseUnreachable("ECONNREFUSED")).toBe(false);
  });

  it("logs the outage once and the return once, whatever the number of failures between; explains only an outage it logged", () => {
    const { logger, lines } = capturedLogger();
    const health = new DatabaseHealth(logger);
    const refused = errorWith({ code: "ECONNREFUSED" });
    // Before any outage nothing is explained: a caller logs its own failure.
    expect(health.explains(refused)).toBe(false);
    health.noteAnswer();
    expect(lines).toEqual([]);

    // A statement the database refused says nothing about its reachability.
    health.noteFailure(errorWith({ code: "23505" }));
    expect(health.reachable).toBe(true);

    for (let i = 0; i < 50; i++) health.noteFailure(refused);
    expect(health.reachable).toBe(false);
    expect(health.explains(refused)).toBe(true);
    expect(health.explains(errorWith({ code: "23505" }))).toBe(false);
    health.noteAnswer();
    health.noteAnswer();
    expect(health.reachable).toBe(true);
    expect(health.explains(refused)).toBe(false);

    expect(lines.map((line) => [line.level, line.msg.split(":")[0]])).toEqual([
      [40, "database unreachable"],
      [30, "database reachable again"],
    ]);
    expect(lines[1]).toMatchObject({ failedCalls: 50 });
  });
});
