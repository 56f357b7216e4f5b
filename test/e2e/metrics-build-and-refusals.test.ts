import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type World } from "../kit/world";

/**
 * Two things /metrics' reader needs besides the bot's own counts: which build each replica runs
 * (bot_build_info), and, when its scrapes are refused, why (GET /metrics/refusals, open to all).
 */
const METRICS_TOKEN = "mt-4b1d9e0c7a2f5e8d6c3b1a90";
const VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

let world: World | null = null;
afterEach(async () => {
  await world?.stop();
  world = null;
});

/** A request to the app's own server as if its TCP peer were `remoteAddress` (as test/e2e/metrics-access.test.ts does). */
function requestFrom(
  started: World,
  remoteAddress: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    started.app.http.fetch(new Request(`http://bot.internal${path}`, { headers }), {
      incoming: { socket: { remoteAddress } },
    }),
  );
}

function buildInfoLine(text: string): string | undefined {
  return /^bot_build_info\{.*\} 1$/m.exec(text)?.[0];
}

describe("bot_build_info", () => {
  it("names the package's version, the commit from GIT_COMMIT and the Node version", async () => {
    world = await startWorld({ env: { GIT_COMMIT: "3f9a1c2e7b" } });
    const line = buildInfoLine(await (await fetch(`${world.app.url}/metrics`)).text());
    expect(line).toBeDefined();
    expect(line).toContain(`version="${VERSION}"`);
    expect(line).toContain('commit="3f9a1c2e7b"');
    expect(line).toContain(`node_version="${process.version}"`);
  });

  it('says the commit is "unknown" when GIT_COMMIT is not set', async () => {
    world = await startWorld();
    const line = buildInfoLine(await (await fetch(`${world.app.url}/metrics`)).text());
    expect(line).toContain('commit="unknown"');
    expect(line).toContain(`version="${VERSION}"`);
  });
});

describe("GET /metrics/refusals: why a scraper reads nothing", () => {
  const refusals = async (started: World, remoteAddress: string) => {
    const answer = await requestFrom(started, remoteAddress, "/metrics/refusals");
    expect(answer.status).toBe(200);
    return answer.text();
  };

  it("counts a wrong or missing token as metrics_unauthorized, to anyone, and shows nothing else", async () => {
    world = await startWorld({ env: { METRICS_TOKEN } });
    const started = world;
    expect(await refusals(started, "10.0.0.5")).toContain(
      'metrics_scrapes_refused_total{reason="metrics_unauthorized"} 0',
    );
    expect(
      (await requestFrom(started, "10.0.0.5", "/metrics", { authorization: "Bearer not-the-token-0123456789" })).status,
    ).toBe(401);
    expect((await requestFrom(started, "10.0.0.5", "/metrics")).status).toBe(401);
    expect(
      (await requestFrom(started, "10.0.0.5", "/metrics", { authorization: `Bearer ${METRICS_TOKEN}` })).status,
    ).toBe(200);
    const text = await refusals(started, "203.0.113.9");
    expect(text).toContain('metrics_scrapes_refused_total{reason="metrics_unauthorized"} 2');
    expect(text).toContain('metrics_scrapes_refused_total{reason="metrics_forbidden"} 0');
    // Two numbers and their help, nothing of the bot's metrics and never the token.
    expect(text.split("\n").filter((line) => line && !line.startsWith("#"))).toHaveLength(2);
    expect(text).not.toContain(METRICS_TOKEN);
    expect(started.logs()).not.toContain(METRICS_TOKEN);
  });

  it("counts scrapes refused because METRICS_TOKEN is unset as metrics_forbidden", async () => {
    world = await startWorld();
    const started = world;
    expect(
      (await requestFrom(started, "10.0.0.5", "/metrics", { authorization: "Bearer whatever-it-is-0123456789" }))
        .status,
    ).toBe(403);
    const text = await refusals(started, "10.0.0.5");
    expect(text).toContain('metrics_scrapes_refused_total{reason="metrics_forbidden"} 1');
    expect(text).toContain('metrics_scrapes_refused_total{reason="metrics_unauthorized"} 0');
  });
});
