import { createHmac, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { manageWorld, type World } from "../kit/world";
import { botTexts, linkedUser, waitFor } from "../kit/push-helpers";

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** A POST to `url` whose connection comes from `localAddress` (any 127.x.y.z reaches loopback). */
function postFrom(
  localAddress: string,
  url: string,
  body: unknown = { event: "ping" },
  headers: Record<string, string> = {},
): Promise<Answer> {
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
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"] as string | undefined,
            body: text,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const unknownToken = () => randomBytes(24).toString("base64url");

/**
 * Counts the queries that read webhook_tokens (a token lookup, alone or in the ingest batch) while
 * `act` runs, by wrapping the query executor every Kysely instance of the app shares.
 */
async function tokenReadsDuring(world: World, act: () => Promise<void>): Promise<number> {
  const prototype = Object.getPrototypeOf(world.app.db.getExecutor()) as {
    executeQuery: (...args: unknown[]) => Promise<unknown>;
  };
  const original = prototype.executeQuery;
  let reads = 0;
  prototype.executeQuery = function (this: unknown, ...args: unknown[]) {
    const compiled = args[0] as { sql?: string } | undefined;
    if (typeof compiled?.sql === "string" && compiled.sql.includes("webhook_tokens")) reads += 1;
    return original.apply(this, args);
  };
  try {
    await act();
  } finally {
    prototype.executeQuery = original;
  }
  return reads;
}

const refusedCount = async (world: World) => {
  const text = await (await fetch(`${world.app.url}/metrics`)).text();
  return Number(
    /^http_requests_refused_total\{route="\/webhooks\/marketplace\/:token",reason="unknown_token_limit"\} (\d+)$/m.exec(
      text,
    )?.[1] ?? 0,
  );
};

const ORDER = {
  id: "7a1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
  resource: "energy",
  targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
  volume: "65000",
  duration: "1h",
  totalTrx: "4.6475",
  status: "Filled",
  txId: "d".repeat(64),
};

describe("past the unknown-token limit every token is answered alike, without a database read", () => {
  let world: World;
  manageWorld((started) => (world = started));

  it("a known and an unknown token get the same 429 from a limited address, and no token is looked up", async () => {
    const who = await linkedUser(world, 741);
    const at = (token: string) => `${world.app.url}/webhooks/marketplace/${token}`;

    // The spy sees lookups: under the limit, a token costs a read of webhook_tokens.
    const under = await tokenReadsDuring(world, async () => {
      expect((await postFrom("127.0.0.4", at(unknownToken()))).status).toBe(404);
    });
    expect(under).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < 30; i++) expect((await postFrom("127.0.0.4", at(unknownToken()))).status).toBe(404);

    const answers: Answer[] = [];
    const reads = await tokenReadsDuring(world, async () => {
      answers.push(await postFrom("127.0.0.4", at(who.token), { event: "order.filled", data: ORDER }));
      answers.push(await postFrom("127.0.0.4", at(unknownToken()), { event: "order.filled", data: ORDER }));
      answers.push(await postFrom("127.0.0.4", at("short")));
      answers.push(await postFrom("127.0.0.4", at(who.token), { event: "order.filled", data: ORDER }));
    });
    expect(answers.map((answer) => answer.status)).toEqual([429, 429, 429, 429]);
    // Nothing in the answer tells the known token from the unknown ones.
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    for (const answer of answers) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
    }
    expect(reads).toBe(0);
    expect(await refusedCount(world)).toBe(4);

    // Another address is not limited: the known token is served and its alert goes out.
    expect((await postFrom("127.0.0.5", at(who.token), { event: "order.filled", data: ORDER })).status).toBe(200);
    await waitFor(() => botTexts(world, 741).some((text) => text.includes("7a1d2e3f") && text.includes("filled")));
    expect(world.logs()).not.toContain(who.token);
  });
});

const SECRET = "mws-limit-secret-5c0e9a13";
const sign = (body: unknown) =>
  `sha256=${createHmac("sha256", SECRET).update(JSON.stringify(body), "utf8").digest("hex")}`;

describe("with MARKETPLACE_WEBHOOK_SECRET set, a signed delivery passes a limited address", () => {
  let world: World;
  manageWorld((started) => (world = started), { env: { MARKETPLACE_WEBHOOK_SECRET: SECRET } });

  it("an unsigned request is refused alike whatever its token; a validly signed one is served", async () => {
    const who = await linkedUser(world, 742);
    const at = (token: string) => `${world.app.url}/webhooks/marketplace/${token}`;
    for (let i = 0; i < 30; i++)
      expect(
        (await postFrom("127.0.0.6", at(unknownToken()), { event: "ping" }, { "x-signature": sign({ event: "ping" }) }))
          .status,
      ).toBe(404);

    const delivery = { event: "order.filled", data: ORDER };
    const refused = await tokenReadsDuring(world, async () => {
      expect((await postFrom("127.0.0.6", at(who.token), delivery)).status).toBe(429);
      expect(
        (await postFrom("127.0.0.6", at(who.token), delivery, { "x-signature": "sha256=" + "0".repeat(64) })).status,
      ).toBe(429);
      expect(
        (await postFrom("127.0.0.6", at(unknownToken()), delivery, { "x-signature": "sha256=" + "0".repeat(64) }))
          .status,
      ).toBe(429);
    });
    expect(refused).toBe(0);

    expect((await postFrom("127.0.0.6", at(who.token), delivery, { "x-signature": sign(delivery) })).status).toBe(200);
    await waitFor(() => botTexts(world, 742).some((text) => text.includes("7a1d2e3f") && text.includes("filled")));
    expect(world.logs()).not.toContain(SECRET);
  });
});
