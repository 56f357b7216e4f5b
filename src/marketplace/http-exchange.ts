/**
 * One HTTP exchange with the marketplace: a request out, the status, Retry-After and the body text
 * back, or why there is none (timeout, network). Two ways to do it: Node's own http/https with
 * keep-alive agents shared by every client (the default: a fraction of fetch's cost per call,
 * which matters when thousands of users are polled every cycle), and any fetch function (tests
 * inject scripted ones).
 */
import http from "node:http";
import https from "node:https";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";

export interface ExchangeRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** For the whole exchange, redirects and body included. */
  timeoutMs: number;
  /** Ends the exchange early, as a timeout (the caller no longer wants the answer). */
  signal?: AbortSignal;
}

export type ExchangeResult =
  | { kind: "answer"; status: number; retryAfter: string | null; text: string }
  | { kind: "timeout" }
  | { kind: "network"; message: string };

export type Exchange = (request: ExchangeRequest) => Promise<ExchangeResult>;

/** A body larger than this is not a marketplace answer (pages are bounded); the exchange fails. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_REDIRECTS = 5;
/** Headers that carry the caller's identity and must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ["x-api-key", "authorization", "cookie"];

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 128 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 128 }),
};

/** An exchange over a fetch function, as the WHATWG fetch standard defines it. */
export function fetchExchange(fetchFn: typeof fetch): Exchange {
  return async (request) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs);
    const cancel = () => controller.abort();
    request.signal?.addEventListener("abort", cancel, { once: true });
    if (request.signal?.aborted) controller.abort();
    try {
      const response = await fetchFn(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
      });
      const text = await response.text();
      return { kind: "answer", status: response.status, retryAfter: response.headers.get("Retry-After"), text };
    } catch (cause) {
      if (controller.signal.aborted) return { kind: "timeout" };
      return { kind: "network", message: describe(cause) };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", cancel);
    }
  };
}

/** The default exchange: Node's http/https over keep-alive connections shared by all clients. */
export const nodeExchange: Exchange = (request) =>
  new Promise<ExchangeResult>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | null = null;
    const finish = (result: ExchangeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", cancel);
      resolve(result);
    };
    const cancel = () => {
      finish({ kind: "timeout" });
      current?.destroy();
    };
    const timer = setTimeout(cancel, request.timeoutMs);
    request.signal?.addEventListener("abort", cancel, { once: true });
    if (request.signal?.aborted) return cancel();

    const send = (
      url: URL,
      method: ExchangeRequest["method"],
      headers: Record<string, string>,
      body: string | undefined,
      redirects: number,
      retriedStale: boolean,
    ) => {
      const transport = url.protocol === "https:" ? https : url.protocol === "http:" ? http : null;
      if (!transport) return finish({ kind: "network", message: `unsupported protocol ${url.protocol}` });
      const outgoing = body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) };
      const req = transport.request(
        url,
        { method, headers: outgoing, agent: agents[url.protocol as "http:" | "https:"] },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (
            location &&
            [301, 302, 303, 307, 308].includes(status) &&
            (method === "GET" || status === 307 || status === 308)
          ) {
            res.resume();
            if (redirects >= MAX_REDIRECTS)
              return finish({ kind: "network", message: `more than ${MAX_REDIRECTS} redirects` });
            let next: URL;
            try {
              next = new URL(location, url);
            } catch {
              return finish({ kind: "network", message: "a redirect to an invalid location" });
            }
            const sameOrigin = next.origin === url.origin;
            const nextHeaders = sameOrigin
              ? headers
              : Object.fromEntries(
                  Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
                );
            return send(next, method, nextHeaders, body, redirects + 1, false);
          }
          readBody(res).then(
            (text) => finish({ kind: "answer", status, retryAfter: headerValue(res.headers["retry-after"]), text }),
            (error: unknown) => finish({ kind: "network", message: describe(error) }),
          );
        },
      );
      current = req;
      req.on("error", (error) => {
        if (settled) return;
        // A kept-alive connection the server closed just as it was reused: a read is sent again
        // once on a fresh connection (the server never saw it); anything else is a network error.
        if (
          req.reusedSocket &&
          !retriedStale &&
          method === "GET" &&
          (error as NodeJS.ErrnoException).code === "ECONNRESET"
        ) {
          return send(url, method, headers, body, redirects, true);
        }
        finish({ kind: "network", message: describe(error) });
      });
      req.end(body);
    };

    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish({ kind: "network", message: "invalid URL" });
    }
    send(url, request.method, request.headers, request.body, 0, false);
  });

function readBody(res: http.IncomingMessage): Promise<string> {
  const encoding = String(res.headers["content-encoding"] ?? "identity")
    .trim()
    .toLowerCase();
  let stream: Readable = res;
  if (encoding === "gzip" || encoding === "x-gzip") stream = res.pipe(createGunzip());
  else if (encoding === "deflate") stream = res.pipe(createInflate());
  else if (encoding === "br") stream = res.pipe(createBrotliDecompress());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.destroy();
        reject(new Error(`the response body is larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    );
    stream.on("error", reject);
    res.on("close", () => {
      if (!res.complete) reject(new Error("the connection closed before the body ended"));
    });
  });
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** Only the message (and its cause's): an error object could carry anything. */
function describe(cause: unknown): string {
  return cause instanceof Error
    ? cause.message + (cause.cause instanceof Error ? ` (${cause.cause.message})` : "")
    : String(cause);
}
