import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { projectRoot } from "../src/paths";
import { Agent, request } from "node:http";
import { join } from "node:path";

export const ROOT_DIR = projectRoot();
export const BENCH_DIR = join(ROOT_DIR, "bench");

/**
 * Telegram's published sending limits (the Bot FAQ): about 30 messages a second overall, about 1 a
 * second to one chat with short bursts (about 3) tolerated, 20 a minute to one group. The bench's
 * only fixed references; every other one is measured in the same run.
 */
export const TELEGRAM_LIMITS = { overallPerSecond: 30, chatPerSecond: 1, chatBurst: 3, groupPerMinute: 20 } as const;

export type Comparison = "<=" | ">=" | "=";

/**
 * A target the run can miss: the figure's value (or its ratio to the reference) against a limit,
 * and any further conditions of the same run, each one a measured outcome named by what it says.
 */
export interface TargetSpec {
  of: "value" | "ratio";
  op: Comparison;
  limit: number;
  /** Where the limit comes from, when it is not obvious (e.g. "Telegram's published limit"). */
  source?: string;
  requires?: Record<string, boolean>;
}

export interface Check {
  of: "value" | "ratio";
  op: Comparison;
  limit: number;
  requires: Record<string, boolean>;
}

/**
 * One line of the bench's table. An informational figure has no `check` and no `met`: it is
 * printed and not counted. A target has both, `met` always derived from `check` (see `isMet`).
 */
export interface Figure {
  name: string;
  /** Null when the part that measures it could not run (bench/parts.ts, partNotRun). */
  value: number | null;
  unit: string;
  reference: string;
  referenceValue: number | null;
  ratio: number | null;
  /** The target in words, or "informational" with why. */
  target: string;
  check?: Check;
  met?: boolean;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function compare(actual: number | null, op: Comparison, limit: number): boolean {
  if (actual === null || !Number.isFinite(actual)) return false;
  if (op === "<=") return actual <= limit;
  if (op === ">=") return actual >= limit;
  return actual === limit;
}

/** Whether a figure's target held, from its own numbers: the compared one against the limit, and every condition. Informational figures: null. */
export function isMet(f: Pick<Figure, "value" | "ratio" | "check">): boolean | null {
  if (!f.check) return null;
  const actual = f.check.of === "ratio" ? f.ratio : f.value;
  return compare(actual, f.check.op, f.check.limit) && Object.values(f.check.requires).every(Boolean);
}

export function targetText(check: Check, source?: string): string {
  const head = `${check.of === "ratio" ? "ratio " : ""}${check.op} ${check.limit}${source ? ` (${source})` : ""}`;
  return [head, ...Object.keys(check.requires)].join("; ");
}

type FigureInput = {
  name: string;
  value: number;
  unit: string;
  reference: string;
  referenceValue: number | null;
  ratio?: number | null;
} & ({ target: TargetSpec; informational?: never } | { informational: string | true; target?: never });

/**
 * A figure: `target` makes it count (its `met` computed here from the rounded numbers the table
 * and the JSON show), `informational` (true, or why) prints it without counting it.
 */
export function figure(input: FigureInput): Figure {
  const computed =
    input.ratio !== undefined ? input.ratio : input.referenceValue ? input.value / input.referenceValue : null;
  const base = {
    name: input.name,
    value: round(input.value, 3),
    unit: input.unit,
    reference: input.reference,
    referenceValue: input.referenceValue === null ? null : round(input.referenceValue, 3),
    ratio: computed === null ? null : round(computed, 3),
  };
  if (!input.target)
    return {
      ...base,
      target: input.informational === true ? "informational" : `informational: ${input.informational}`,
    };
  const check: Check = {
    of: input.target.of,
    op: input.target.op,
    limit: input.target.limit,
    requires: input.target.requires ?? {},
  };
  const f: Figure = { ...base, target: targetText(check, input.target.source), check };
  return { ...f, met: isMet(f)! };
}

export interface Summary {
  targets: number;
  met: number;
  missed: string[];
  informational: number;
}

/** Counts the targets only; `met` is recomputed from each figure's numbers, not read back. */
export function summarize(figures: Figure[]): Summary {
  const targets = figures.filter((f) => f.check);
  const missed = targets.filter((f) => !isMet(f)).map((f) => f.name);
  return {
    targets: targets.length,
    met: targets.length - missed.length,
    missed,
    informational: figures.length - targets.length,
  };
}

/** The process's exit code once the results are written: 2 when a target was missed, unless exploring. */
export function exitCode(figures: Figure[], explore: boolean): number {
  return !explore && summarize(figures).missed.length > 0 ? 2 : 0;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds of the mix against the same-I/O reference summed up: the medians of each side and of the rounds' own ratios. */
export function sameIoSummary(rounds: Array<{ app: number; sameIo: number }>): {
  app: number;
  sameIo: number;
  ratio: number;
  ratios: number[];
} {
  const ratios = rounds.map((r) => r.app / r.sameIo);
  return {
    app: median(rounds.map((r) => r.app)),
    sameIo: median(rounds.map((r) => r.sameIo)),
    ratio: median(ratios),
    ratios,
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

// ---- child processes over IPC -----------------------------------------------------------------

export interface Child {
  process: ChildProcess;
  /** The child's first message (its "ready" report). */
  ready: Promise<Record<string, unknown>>;
  call<T = Record<string, unknown>>(command: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const bundles = new Map<string, string>();

/**
 * Bundles a bench child with esbuild exactly as `npm run build` bundles the bot (dependencies
 * stay in node_modules), so the children run on plain Node as the bot does in production, not
 * under the TypeScript loader (whose worker thread alone would add tens of MB to every RSS figure).
 */
function bundle(script: string, root = ROOT_DIR): string {
  const key = `${root}\0${script}`;
  const cached = bundles.get(key);
  if (cached) return cached;
  const out = join(root, "bench", ".build", script.replace(/\.ts$/, ".mjs"));
  execFileSync(
    join(ROOT_DIR, "node_modules", ".bin", "esbuild"),
    [
      join(root, "bench", "children", script),
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      "--sourcemap",
      `--outfile=${out}`,
      "--log-level=warning",
    ],
    { stdio: "inherit" },
  );
  bundles.set(key, out);
  return out;
}

/** Forks a bench child (bundled, on plain Node), talking over IPC; `root` is the checkout whose bench/children holds it (this one by default). */
export function forkChild(
  script: string,
  env: Record<string, string>,
  options: { exposeGc?: boolean; root?: string } = {},
): Child {
  const execArgv = [
    "--enable-source-maps",
    ...(options.exposeGc ? ["--expose-gc"] : []),
    ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : []),
  ];
  const child = fork(bundle(script, options.root), [], {
    execArgv,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let seq = 0;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let readyResolve!: (value: Record<string, unknown>) => void;
  let readyReject!: (error: Error) => void;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  child.on("message", (raw) => {
    const message = raw as { ready?: boolean; id?: number; ok?: boolean; result?: unknown; error?: string };
    if (message.ready) {
      readyResolve(message as Record<string, unknown>);
      return;
    }
    const entry = waiting.get(message.id ?? -1);
    if (!entry) return;
    waiting.delete(message.id!);
    if (message.ok) entry.resolve(message.result);
    else entry.reject(new Error(`${script}: ${message.error}`));
  });
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", (code, signal) => {
    exited = true;
    const error = new Error(`${script} exited (code ${code}, signal ${signal})`);
    readyReject(error);
    for (const entry of waiting.values()) entry.reject(error);
    waiting.clear();
  });
  return {
    process: child,
    ready,
    call<T>(command: string, args: Record<string, unknown> = {}, timeoutMs = 300_000) {
      const id = ++seq;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${script}: ${command} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as T);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        child.send({ id, command, args });
      });
    },
    async kill(signal = "SIGTERM") {
      if (exited) return;
      child.kill(signal);
      await Promise.race([exitedPromise, sleep(5_000)]);
      if (!exited) child.kill("SIGKILL");
      await exitedPromise;
    },
  };
}

/** The child side: answers `{id, command, args}` messages with the named handler's result. */
export function serveCommands(
  handlers: Record<string, (args: Record<string, unknown>) => Promise<unknown> | unknown>,
): void {
  process.on("message", (raw) => {
    const { id, command, args } = raw as { id: number; command: string; args: Record<string, unknown> };
    const handler = handlers[command];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${command}`);
        return handler(args ?? {});
      })
      .then(
        (result) => process.send!({ id, ok: true, result }),
        (error: unknown) =>
          process.send!({
            id,
            ok: false,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          }),
      );
  });
  // The parent going away ends the child (no orphans after a crash of the bench).
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
}

// ---- HTTP load on loopback --------------------------------------------------------------------

export function createAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

export interface PostResult {
  status: number;
  body: string;
}

/** One POST over a keep-alive agent; loopback only (the URL is checked by the caller's host). */
export function post(agent: Agent, url: URL, body: string, timeoutMs = 10_000): Promise<PostResult> {
  if (url.hostname !== "127.0.0.1")
    return Promise.reject(new Error(`the bench talks to loopback only, not ${url.hostname}`));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  seconds: number;
  perSecond: number;
  latenciesMs: number[];
}

/**
 * Closed loop: `concurrency` requests in flight until `count` were sent or `timeLimitMs` passed
 * (both bounds always apply).
 */
export async function closedLoop(options: {
  count: number;
  concurrency: number;
  timeLimitMs: number;
  send: (index: number) => Promise<boolean>;
}): Promise<LoadResult> {
  const started = performance.now();
  const deadline = started + options.timeLimitMs;
  let next = 0;
  let ok = 0;
  let failed = 0;
  const latenciesMs: number[] = [];
  const worker = async () => {
    while (next < options.count && performance.now() < deadline) {
      const index = next++;
      const at = performance.now();
      const success = await options.send(index).catch(() => false);
      latenciesMs.push(performance.now() - at);
      if (success) ok += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { sent: next, ok, failed, seconds, perSecond: ok / seconds, latenciesMs };
}

/**
 * Open loop at a fixed offered rate: request i is due at start + i/rate and its latency is counted
 * from that due time (no coordinated omission). Bounded by `durationMs`; stragglers are awaited
 * up to `drainMs`.
 */
export async function openLoop(options: {
  ratePerSecond: number;
  durationMs: number;
  drainMs?: number;
  send: (index: number) => Promise<boolean>;
}): Promise<LoadResult> {
  const total = Math.floor((options.ratePerSecond * options.durationMs) / 1000);
  const started = performance.now();
  const latenciesMs: number[] = [];
  const inFlight: Array<Promise<void>> = [];
  let ok = 0;
  let failed = 0;
  let index = 0;
  while (index < total) {
    const elapsed = performance.now() - started;
    const due = Math.min(total, Math.floor((elapsed * options.ratePerSecond) / 1000) + 1);
    for (; index < due; index++) {
      const dueAt = started + (index * 1000) / options.ratePerSecond;
      const i = index;
      inFlight.push(
        options
          .send(i)
          .catch(() => false)
          .then((success) => {
            latenciesMs.push(performance.now() - dueAt);
            if (success) ok += 1;
            else failed += 1;
          }),
      );
    }
    await sleep(1);
  }
  await Promise.race([Promise.all(inFlight), sleep(options.drainMs ?? 10_000)]);
  const seconds = (performance.now() - started) / 1000;
  return { sent: total, ok, failed, seconds, perSecond: ok / seconds, latenciesMs };
}

/** A marketplace order event as the sandbox sends it: {id, event, createdAt, data: {order}}. */
export function orderEvent(index: number, salt: string): { eventId: string; orderId: string; body: string } {
  const hex = (index + 1).toString(16).padStart(12, "0");
  const orderId = `${salt.slice(0, 8)}-0000-4000-8000-${hex}`;
  const eventId = `evt-${salt}-${index}`;
  const body = JSON.stringify({
    id: eventId,
    event: "order.filled",
    createdAt: new Date().toISOString(),
    data: {
      order: {
        id: orderId,
        resource: "energy",
        targetAddress: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL",
        volume: 65000,
        duration: "1h",
        priceTrx: "4.6475",
        activationTrx: "0",
        totalTrx: "4.6475",
        status: "Filled",
        txId: "a".repeat(64),
        createdAt: new Date().toISOString(),
      },
    },
  });
  return { eventId, orderId, body };
}
