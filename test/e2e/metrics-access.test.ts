import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";

const METRICS_TOKEN = "mt-9f2c4e7a1b3d5f60a8c2e4b6";
const REPLICA_ID = "replica-7f3e-marker";

/** The first non-internal IPv4 address of this machine, if it has one. */
const NON_LOOPBACK = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === "IPv4" && !address.internal)?.address;

/**
 * A request handled by the app's own server as if its TCP peer were `remoteAddress` (the Node
 * adapter hands the socket to the handlers the same way), for addresses a test cannot connect from.
 */
function requestFrom(
  world: World,
  remoteAddress: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    world.app.http.fetch(new Request(`http://bot.internal${path}`, { headers }), {
      incoming: { socket: { remoteAddress } },
    }),
  );
}

const refused = async (world: World, reason: string) => {
  const text = await (await fetch(`${world.app.url}/metrics`)).text();
  return Number(
    new RegExp(`^http_requests_refused_total\\{route="/metrics",reason="${reason}"\\} (\\d+)$`, "m").exec(text)?.[1] ??
      0,
  );
};

describe("/metrics and /readyz without METRICS_TOKEN", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { REPLICA_ID } });

  it("answers loopback clients, refuses everyone else with 403 whatever they send, and counts the refusals", async () => {
    const local = await fetch(`${world.app.url}/metrics`);
    expect(local.status).toBe(200);
    const text = await local.text();
    expect(text).toContain("http_requests_total");
    expect(text).toContain(`replica="${REPLICA_ID}"`);
    for (const loopback of ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"])
      expect((await requestFrom(world, loopback, "/metrics")).status, loopback).toBe(200);

    for (const outside of ["203.0.113.9", "10.0.0.5", "::ffff:203.0.113.9", "2001:db8::1"]) {
      const answer = await requestFrom(world, outside, "/metrics");
      expect(answer.status, outside).toBe(403);
      expect(await answer.text()).not.toContain("http_requests_total");
      expect(
        (await requestFrom(world, outside, "/metrics", { authorization: "Bearer anything-at-all-1234567" })).status,
      ).toBe(403);
    }
    // No socket at all (an in-process request) is not loopback either.
    expect((await world.app.http.fetch(new Request("http://bot.internal/metrics"))).status).toBe(403);
    expect(await refused(world, "metrics_forbidden")).toBe(9);
  });

  it("a request a proxy forwarded is not loopback, even when the proxy runs on this machine or the header names loopback", async () => {
    const forwarded: Array<Record<string, string>> = [
      { "x-forwarded-for": "203.0.113.9" },
      { "x-forwarded-for": "127.0.0.1" },
      { forwarded: "for=127.0.0.1" },
      { "x-real-ip": "127.0.0.1" },
    ];
    for (const headers of forwarded) {
      expect((await fetch(`${world.app.url}/metrics`, { headers })).status, JSON.stringify(headers)).toBe(403);
      // A forwarding header never makes an outside client look like loopback.
      expect((await requestFrom(world, "203.0.113.9", "/metrics", headers)).status).toBe(403);
    }
  });

  it("/readyz names neither the replica nor the dialect, to anyone", async () => {
    for (const answer of [await fetch(`${world.app.url}/readyz`), await requestFrom(world, "203.0.113.9", "/readyz")]) {
      expect(answer.status).toBe(200);
      const body = await answer.text();
      expect(JSON.parse(body)).toEqual({ status: "ready", database: "ok" });
      expect(body).not.toContain(REPLICA_ID);
      expect(body).not.toMatch(/sqlite|postgres|dialect|replica/i);
    }
  });
});

describe("/metrics with METRICS_TOKEN", () => {
  let world: World;
  // Listening on every address, so a client on this machine's network address is not loopback.
  manageWorld((started) => (world = started), { env: { METRICS_TOKEN, HOST: "0.0.0.0" } });

  it("other clients need Authorization: Bearer <METRICS_TOKEN>: none or a wrong one is 401, the right one 200", async () => {
    const outside = "203.0.113.9";
    const missing = await requestFrom(world, outside, "/metrics");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    for (const authorization of [
      "Bearer wrong-token-0000000000000",
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Basic ${METRICS_TOKEN}`,
      METRICS_TOKEN,
      "Bearer ",
    ]) {
      const answer = await requestFrom(world, outside, "/metrics", { authorization });
      expect(answer.status, authorization.replace(METRICS_TOKEN, "<token>")).toBe(401);
      expect(await answer.text()).not.toContain("http_requests_total");
    }
    for (const authorization of [`Bearer ${METRICS_TOKEN}`, `bearer ${METRICS_TOKEN}`]) {
      const answer = await requestFrom(world, outside, "/metrics", { authorization });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("http_requests_total");
    }
    // Loopback still needs no token.
    expect((await fetch(`${world.app.url}/metrics`)).status).toBe(200);
    expect(await refused(world, "metrics_unauthorized")).toBe(7);

    // The token never reaches a log, not even when the configuration itself is logged.
    world.app.logger.warn({ config: world.app.config }, "configuration dump for the test");
    expect(world.logs()).toContain("configuration dump for the test");
    expect(world.logs()).not.toContain(METRICS_TOKEN);
  });

  it.skipIf(!NON_LOOPBACK)(
    `over a real connection from this machine's network address (${NON_LOOPBACK ?? "none here"})`,
    async () => {
      const url = `http://${NON_LOOPBACK}:${new URL(world.app.url).port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: "Bearer wrong-token-0000000000000" } })).status).toBe(401);
      const answer = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("http_requests_total");
    },
  );
});
