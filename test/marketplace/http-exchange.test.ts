import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import net from "node:net";
import { gzipSync, brotliCompressSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { nodeExchange } from "#src/marketplace/http-exchange";
import { createMarketplaceClient, MarketplaceError } from "#src/marketplace/index";

interface Seen {
  server: string;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Two loopback servers (two origins) answering by path, recording what reached them. */
function startServer(
  name: string,
  seen: Seen[],
  routes: (path: string, req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ server: name, method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      routes(new URL(req.url ?? "/", "http://x").pathname, req, res, body);
    });
  });
  return new Promise<{ server: http.Server; url: string }>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe("the marketplace's default HTTP exchange (Node http with keep-alive)", () => {
  const seen: Seen[] = [];
  let a: { server: http.Server; url: string };
  let b: { server: http.Server; url: string };
  const key = "mk_live_exchange_test_key_0123456789";

  beforeAll(async () => {
    b = await startServer("b", seen, (_path, _req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ balanceTrx: "1.5" }));
    });
    a = await startServer("a", seen, (path, _req, res, body) => {
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      if (path === "/plain") return json(200, { ok: true, body });
      if (path === "/gzip") {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        return res.end(gzipSync(JSON.stringify({ zipped: "ü".repeat(3000) })));
      }
      if (path === "/br") {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "br" });
        return res.end(brotliCompressSync(JSON.stringify({ br: true })));
      }
      if (path === "/busy") return json(429, { code: "rate_limited" }, { "retry-after": "7" });
      if (path === "/same-origin-redirect") return json(307, {}, { location: "/plain" });
      if (path === "/cross-origin-redirect") return json(302, {}, { location: `${b.url}/elsewhere` });
      if (path === "/loop") return json(302, {}, { location: "/loop" });
      if (path === "/slow") return setTimeout(() => json(200, { late: true }), 400);
      if (path === "/huge") {
        res.writeHead(200, { "content-type": "application/json" });
        const piece = Buffer.alloc(1024 * 1024, 32);
        for (let i = 0; i < 9; i++) res.write(piece);
        return res.end();
      }
      return json(404, { code: "not_found" });
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => a.server.close(resolve));
    await new Promise((resolve) => b.server.close(resolve));
  });

  it("sends the method, headers and body and returns status and text", async () => {
    const result = await nodeExchange({
      method: "POST",
      url: `${a.url}/plain?x=1`,
      headers: { Accept: "application/json", "X-Api-Key": key },
      body: JSON.stringify({ é: "ü" }),
      timeoutMs: 2_000,
    });
    expect(result).toEqual({
      kind: "answer",
      status: 200,
      retryAfter: null,
      text: JSON.stringify({ ok: true, body: JSON.stringify({ é: "ü" }) }),
    });
    const request = seen.at(-1)!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/plain?x=1");
    expect(request.headers["x-api-key"]).toBe(key);
    expect(request.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify({ é: "ü" }))));
  });

  it("decodes gzip and brotli bodies, and reads Retry-After from an error", async () => {
    const zipped = await nodeExchange({ method: "GET", url: `${a.url}/gzip`, headers: {}, timeoutMs: 2_000 });
    expect(zipped.kind === "answer" && JSON.parse(zipped.text)).toEqual({ zipped: "ü".repeat(3000) });
    const br = await nodeExchange({ method: "GET", url: `${a.url}/br`, headers: {}, timeoutMs: 2_000 });
    expect(br.kind === "answer" && JSON.parse(br.text)).toEqual({ br: true });
    const busy = await nodeExchange({ method: "GET", url: `${a.url}/busy`, headers: {}, timeoutMs: 2_000 });
    expect(busy).toMatchObject({ kind: "answer", status: 429, retryAfter: "7" });
  });

  it("follows a redirect on the same origin with the key, and drops the key when the origin changes", async () => {
    const same = await nodeExchange({
      method: "POST",
      url: `${a.url}/same-origin-redirect`,
      headers: { "X-Api-Key": key },
      body: "{}",
      timeoutMs: 2_000,
    });
    expect(same).toMatchObject({ kind: "answer", status: 200 });
    expect(seen.at(-1)).toMatchObject({ server: "a", url: "/plain", method: "POST", body: "{}" });
    expect(seen.at(-1)!.headers["x-api-key"]).toBe(key);

    const cross = await nodeExchange({
      method: "GET",
      url: `${a.url}/cross-origin-redirect`,
      headers: { "X-Api-Key": key, Accept: "application/json" },
      timeoutMs: 2_000,
    });
    expect(cross).toMatchObject({ kind: "answer", status: 200 });
    expect(seen.at(-1)).toMatchObject({ server: "b", url: "/elsewhere" });
    expect(seen.at(-1)!.headers["x-api-key"]).toBeUndefined();
    expect(seen.at(-1)!.headers.accept).toBe("application/json");

    const loop = await nodeExchange({ method: "GET", url: `${a.url}/loop`, headers: {}, timeoutMs: 2_000 });
    expect(loop).toEqual({ kind: "network", message: "more than 5 redirects" });
  });

  it("reports a timeout, a refused connection and an oversized body as failures, not answers", async () => {
    expect(await nodeExchange({ method: "GET", url: `${a.url}/slow`, headers: {}, timeoutMs: 100 })).toEqual({
      kind: "timeout",
    });
    const closed = http.createServer();
    const port = await new Promise<number>((resolve) =>
      closed.listen(0, "127.0.0.1", () => resolve((closed.address() as AddressInfo).port)),
    );
    await new Promise((resolve) => closed.close(resolve));
    expect(
      await nodeExchange({ method: "GET", url: `http://127.0.0.1:${port}/`, headers: {}, timeoutMs: 2_000 }),
    ).toMatchObject({ kind: "network", message: expect.stringContaining("ECONNREFUSED") });
    expect(await nodeExchange({ method: "GET", url: `${a.url}/huge`, headers: {}, timeoutMs: 5_000 })).toMatchObject({
      kind: "network",
      message: expect.stringContaining("larger than"),
    });
    expect(await nodeExchange({ method: "GET", url: "ftp://127.0.0.1/", headers: {}, timeoutMs: 2_000 })).toEqual({
      kind: "network",
      message: "unsupported protocol ftp:",
    });
  });

  it("sends a read again once when a kept-alive connection turns out closed, never a write", async () => {
    // Raw HTTP: the first request on a connection is answered with keep-alive; a second request on
    // the same connection finds it closed by the server, as after the server's idle timeout.
    let connections = 0;
    const raw = net.createServer((socket) => {
      connections += 1;
      let requests = 0;
      socket.on("data", (chunk) => {
        if (!chunk.toString("latin1").includes("\r\n\r\n")) return;
        requests += 1;
        if (requests === 1)
          socket.write(
            'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}',
          );
        else socket.destroy();
      });
    });
    const port = await new Promise<number>((resolve) =>
      raw.listen(0, "127.0.0.1", () => resolve((raw.address() as AddressInfo).port)),
    );
    try {
      const url = `http://127.0.0.1:${port}/api/v1/orders`;
      expect(await nodeExchange({ method: "GET", url, headers: {}, timeoutMs: 2_000 })).toMatchObject({
        kind: "answer",
        status: 200,
      });
      expect(await nodeExchange({ method: "GET", url, headers: {}, timeoutMs: 2_000 })).toMatchObject({
        kind: "answer",
        status: 200,
        text: '{"ok":true}',
      });
      expect(connections).toBe(2);
      // A write on a connection found closed is not sent again here (the order POST carries an
      // Idempotency-Key and the transport's own retry policy decides).
      const write = await nodeExchange({ method: "POST", url, headers: {}, body: "{}", timeoutMs: 2_000 });
      expect(write).toMatchObject({ kind: "network" });
      expect(connections).toBe(2);
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it("is what the client uses when no fetch is given: answers parsed, failures typed, the key never in an error", async () => {
    const client = createMarketplaceClient({ baseUrl: `${a.url}/`, apiKey: () => key, maxRetries: 0, timeoutMs: 100 });
    const failure = await client.balance().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MarketplaceError);
    expect((failure as MarketplaceError).status).toBe(404);
    expect(JSON.stringify(failure)).not.toContain(key);
    expect(String((failure as Error).message)).not.toContain(key);
  });
});
