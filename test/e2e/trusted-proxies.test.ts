import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { parseConfig } from "#src/config";
import { manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, waitFor } from "../kit/push-helpers";

/** The load balancer in front of the bot: connections from this loopback address. */
const PROXY = "127.0.0.2";

/** A POST to `url` whose connection comes from `localAddress` (any 127.x.y.z reaches loopback). */
function postFrom(
  localAddress: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter?: string }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        localAddress,
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A GET of `url` from `localAddress`, answering its status. */
function getFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, localAddress, agent: false, headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const unknownToken = () => randomBytes(24).toString("base64url");
const order = (id: string) => ({
  event: "order.filled",
  data: {
    id,
    resource: "energy",
    targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
    volume: "65000",
    duration: "1h",
    totalTrx: "4.6475",
    status: "Filled",
    txId: "d".repeat(64),
  },
});

describe("behind a trusted proxy, limits count the client the proxy names", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { TRUSTED_PROXIES: `${PROXY}, 10.0.0.0/8, fd00::/8` } });
  const at = (token: string) => `${world.app.url}/webhooks/marketplace/${token}`;

  it("one client's random tokens through the proxy never block another client's real deliveries", async () => {
    const who = await linkedUser(world, 751);
    // The stranger guesses tokens through the balancer, past the limit of 30 a minute.
    for (let i = 0; i < 30; i++)
      expect(
        (await postFrom(PROXY, at(unknownToken()), { event: "ping" }, { "x-forwarded-for": "198.51.100.7" })).status,
      ).toBe(404);
    const limited = await postFrom(PROXY, at(unknownToken()), { event: "ping" }, { "x-forwarded-for": "198.51.100.7" });
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    // Another hop in front of the balancer (trusted too) is skipped: the stranger is still the stranger.
    expect(
      (await postFrom(PROXY, at(unknownToken()), { event: "ping" }, { "x-forwarded-for": "198.51.100.7, 10.1.2.3" }))
        .status,
    ).toBe(429);

    // The marketplace reaches the bot through the same balancer, from its own address: served.
    expect(
      (
        await postFrom(PROXY, at(who.token), order("7a1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"), {
          "x-forwarded-for": "203.0.113.20",
        })
      ).status,
    ).toBe(200);
    await waitFor(() => botTexts(world, 751).some((text) => text.includes("7a1d2e3f") && text.includes("filled")));
    // The log names the stranger's address, once, never a token.
    expect(
      world
        .logs()
        .split("\n")
        .filter((line) => line.includes("unknown-token limit") && line.includes("198.51.100.7")),
    ).toHaveLength(1);
    expect(world.logs()).not.toContain(who.token);
  });

  it("a client outside the list cannot claim an address by writing X-Forwarded-For", async () => {
    const who = await linkedUser(world, 752);
    // A direct client names the marketplace's address in the header: counted as itself all the same.
    for (let i = 0; i < 30; i++)
      expect(
        (await postFrom("127.0.0.3", at(unknownToken()), { event: "ping" }, { "x-forwarded-for": "203.0.113.20" }))
          .status,
      ).toBe(404);
    expect(
      (await postFrom("127.0.0.3", at(unknownToken()), { event: "ping" }, { "x-forwarded-for": "203.0.113.99" }))
        .status,
    ).toBe(429);
    expect(
      (
        await postFrom(PROXY, at(who.token), order("8b2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a"), {
          "x-forwarded-for": "203.0.113.20",
        })
      ).status,
    ).toBe(200);
    await waitFor(() => botTexts(world, 752).some((text) => text.includes("8b2e3f4a") && text.includes("filled")));
  });

  it("/metrics: a forwarded outside client is refused; what the proxy forwards from loopback is loopback; a stranger's header is not believed", async () => {
    expect(await getFrom(PROXY, `${world.app.url}/metrics`, { "x-forwarded-for": "198.51.100.7" })).toBe(403);
    expect(await getFrom(PROXY, `${world.app.url}/metrics`, { "x-forwarded-for": "127.0.0.1" })).toBe(200);
    // The stranger writes loopback left of its own address: the proxy appended the real one.
    expect(await getFrom(PROXY, `${world.app.url}/metrics`, { "x-forwarded-for": "127.0.0.1, 198.51.100.7" })).toBe(
      403,
    );
    expect(await getFrom("127.0.0.3", `${world.app.url}/metrics`, { "x-forwarded-for": "127.0.0.1" })).toBe(403);
  });
});

describe("TRUSTED_PROXIES", () => {
  it("takes addresses and CIDRs, IPv4 and IPv6, comma-separated", () => {
    const parsed = parseConfig({ TRUSTED_PROXIES: "172.28.0.10, 10.0.0.0/8,fd00::/8 ,::1" });
    expect(parsed.ok && parsed.config.TRUSTED_PROXIES).toEqual(["172.28.0.10", "10.0.0.0/8", "fd00::/8", "::1"]);
    const unset = parseConfig({});
    expect(unset.ok && unset.config.TRUSTED_PROXIES).toEqual([]);
  });

  it.each(["caddy", "10.0.0.0/33", "fd00::/129", "10.0.0.1/8/2", "300.1.1.1", "10.0.0.0/x"])(
    "refuses %s at start, naming the variable and the entry's position",
    (bad) => {
      const parsed = parseConfig({ TRUSTED_PROXIES: `127.0.0.1,${bad}` });
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.problems).toHaveLength(1);
      expect(parsed.problems[0]).toMatch(/^TRUSTED_PROXIES: expected comma-separated IP addresses or CIDRs .*entry 2 /);
    },
  );
});
