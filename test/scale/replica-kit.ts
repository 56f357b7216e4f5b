import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "../kit/net";
import { BOT_TOKEN } from "../kit/world";

/** Helpers for tests that run several bot processes (`node src/main.ts`) on one PostgreSQL. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks every `everyMs` (default 100: the fake Telegram shares this process, keep its clock calm). */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string),
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(everyMs);
  }
}

export interface Replica {
  id: string;
  port: number;
  url: string;
  child: ChildProcess;
  alive: boolean;
  out: () => string;
}

export interface ReplicaEnv {
  telegramApiRoot: string;
  marketplaceUrl: string;
  databaseUrl: string;
  secretKey: string;
  mode: "webhook" | "polling";
  leaseMs?: number;
  /** More settings of the replica (they win over the ones above). */
  extra?: Record<string, string>;
}

export async function spawnReplica(id: string, env: ReplicaEnv): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      BOT_TOKEN,
      TELEGRAM_API_ROOT: env.telegramApiRoot,
      MARKETPLACE_URL: env.marketplaceUrl,
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_MAX: "8",
      SECRET_KEY: env.secretKey,
      BOT_MODE: env.mode,
      PUBLIC_URL: "https://bot.example.com",
      HOST: "127.0.0.1",
      PORT: String(port),
      NOTIFICATIONS_POLL: "0 0 1 1 *",
      LOG_LEVEL: "info",
      REPLICA_ID: id,
      ...(env.leaseMs ? { LEASE_MS: String(env.leaseMs) } : {}),
      ...env.extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const replica: Replica = { id, port, url: `http://127.0.0.1:${port}`, child, alive: true, out: () => output };
  child.on("exit", () => (replica.alive = false));
  return replica;
}

export async function waitReady(replica: Replica): Promise<void> {
  await waitUntil(
    async () => (await fetch(`${replica.url}/readyz`).catch(() => null))?.ok === true,
    40_000,
    () => `${replica.id} to be ready\n${replica.out()}`,
  );
}

/** SIGKILL: the process gets no chance to release leases or finish anything. */
export async function killHard(replica: Replica): Promise<void> {
  const exited = new Promise((resolve) => replica.child.once("exit", resolve));
  replica.child.kill("SIGKILL");
  replica.alive = false;
  await exited;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export const closeServer = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });
}

/** One request a replica made through its {@link startTaggedProxy}. */
export interface TaggedCall {
  replica: string;
  method: string;
  path: string;
  body: string;
  /** The X-Api-Key header (marketplace calls name their user by it). */
  apiKey?: string;
  /** Milliseconds when the request arrived, was passed on, and its answer came back (undefined: never). */
  startedAt: number;
  forwardedAt?: number;
  answeredAt?: number;
  status?: number;
}

/**
 * A pass-through proxy in front of a shared service (the fake Telegram, the sandbox) for one
 * replica, so the test knows which replica made each call — also the calls of a replica killed
 * while they were in flight.
 */
export async function startTaggedProxy(
  target: string,
  replica: string,
  log: TaggedCall[],
  options: { delayMs?: (call: TaggedCall) => number; answerDelayMs?: (call: TaggedCall) => number } = {},
): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    let hungUp = false; // before an answer is written, "close" means the caller went away
    res.on("close", () => (hungUp = true));
    void readBody(req).then(async (body) => {
      const apiKey = typeof req.headers["x-api-key"] === "string" ? req.headers["x-api-key"] : undefined;
      const call: TaggedCall = {
        replica,
        method: req.method ?? "",
        path: req.url ?? "",
        body: body.toString(),
        apiKey,
        startedAt: Date.now(),
      };
      log.push(call);
      // a slow link: the request waits before it reaches the service, and is lost if the caller dies meanwhile
      const delay = options.delayMs?.(call) ?? 0;
      if (delay > 0) await sleep(delay);
      if (hungUp) return;
      call.forwardedAt = Date.now();
      const proxied = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          call.status = answer.statusCode;
          // a slow way back: the service has acted, the caller learns it later (or never, if it dies)
          void sleep(options.answerDelayMs?.(call) ?? 0).then(() => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on("end", () => (call.answeredAt = Date.now()));
          });
        },
      );
      proxied.on("error", () => res.destroy());
      // the replica hung up (killed): hang up upstream too, as its socket would
      res.on("close", () => {
        if (!res.writableFinished) proxied.destroy();
      });
      proxied.end(body);
    });
  });
  return { url: await listen(server), server };
}

/** A round-robin HTTP load balancer that skips backends refusing connections; records who got what. */
export async function startBalancer(backends: () => Replica[]) {
  let next = 0;
  /** forwardedAt: when the backend was sent the request; at: when its answer began. */
  const routed: Array<{ path: string; replica: string; body: string; forwardedAt: number; at: number }> = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const attempt = (tries: number) => {
        const alive = backends().filter((b) => b.alive);
        if (alive.length === 0 || tries > 6) {
          res.writeHead(502).end();
          return;
        }
        const backend = alive[next++ % alive.length]!;
        const forwardedAt = Date.now();
        const proxied = httpRequest(
          { host: "127.0.0.1", port: backend.port, path: req.url, method: req.method, headers: req.headers },
          (answer: IncomingMessage) => {
            routed.push({
              path: req.url ?? "",
              replica: backend.id,
              body: body.toString(),
              forwardedAt,
              at: Date.now(),
            });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        proxied.on("error", () => attempt(tries + 1));
        proxied.end(body);
      };
      attempt(0);
    });
  });
  return { server, routed, url: await listen(server) };
}

/** Bot API method of a proxied Telegram call path. */
export const methodOf = (call: TaggedCall) => /\/bot[^/]+\/([A-Za-z]+)$/.exec(call.path)?.[1] ?? "";
