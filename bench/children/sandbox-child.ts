/**
 * Bench child: the sandbox marketplace on 127.0.0.1 with BENCH_ACCOUNTS accounts (one read key
 * each) holding BENCH_NOTIFICATIONS notifications, and BENCH_DELAY_MS added to every
 * notifications call (injectFault delayMs). Reports {ready, url, keys, accountIds}.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createSandbox } from "../../src/sandbox/index";
import { serveCommands } from "../lib";

const accounts = Number(process.env.BENCH_ACCOUNTS ?? "100");
const perAccount = Number(process.env.BENCH_NOTIFICATIONS ?? "10");
const delayMs = Number(process.env.BENCH_DELAY_MS ?? "50");

const sandbox = createSandbox({ settleDelayMs: 0 });
const keys: string[] = [];
const accountIds: string[] = [];
for (let i = 0; i < accounts; i++) {
  const { accountId } = sandbox.control.createAccount({ trx: "100", usdt: "0" });
  keys.push(sandbox.control.createKey({ accountId, scope: "read", dailyLimitTrx: null }).apiKey);
  accountIds.push(accountId);
  for (let n = 0; n < perAccount; n++)
    sandbox.control.addNotification({
      accountId,
      title: `Notice ${n}`,
      body: `Bench notification ${n} for account ${i}`,
    });
}
if (delayMs > 0)
  sandbox.control.injectFault({ method: "GET", pathPrefix: "/notifications", delayMs, times: 1_000_000_000 });

// Notification list calls per key, so the benchmark can tell that a cycle polled each user once.
const keyIndex = new Map(keys.map((key, index) => [key, index]));
let notificationCalls = new Map<number, number>();
// When each key was listed, so the benchmark can see from the marketplace's side whether poll
// cycles ran one after another or at once.
let callTimes = new Map<number, number[]>();
const fetch = (request: Request, ...rest: unknown[]) => {
  if (request.method === "GET" && new URL(request.url).pathname.endsWith("/notifications")) {
    const index = keyIndex.get(request.headers.get("x-api-key") ?? "");
    if (index !== undefined) {
      notificationCalls.set(index, (notificationCalls.get(index) ?? 0) + 1);
      const times = callTimes.get(index);
      if (times) times.push(performance.now());
      else callTimes.set(index, [performance.now()]);
    }
  }
  return (sandbox.app.fetch as (request: Request, ...rest: unknown[]) => Response | Promise<Response>)(
    request,
    ...rest,
  );
};

const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => {
  const port = (server.address() as AddressInfo).port;
  serveCommands({
    /** How many accounts had their notifications listed 0, 1 and more times since the last reset. */
    calls: ({ reset }) => {
      let none = 0;
      let once = 0;
      let more = 0;
      for (let i = 0; i < keys.length; i++) {
        const n = notificationCalls.get(i) ?? 0;
        if (n === 0) none += 1;
        else if (n === 1) once += 1;
        else more += 1;
      }
      if (reset) notificationCalls = new Map();
      return { none, once, more };
    },
    /**
     * Poll cycles as the marketplace saw them: a cycle lists each key once, so the n-th listing of
     * every key belongs to the n-th cycle since the last reset. Returns how many cycles there were
     * and the most whose spans (first to last listing) overlapped at any moment.
     */
    cycles: ({ reset }) => {
      const spans: Array<{ from: number; to: number }> = [];
      for (const times of callTimes.values()) {
        times.forEach((at, n) => {
          const span = spans[n];
          if (!span) spans[n] = { from: at, to: at };
          else {
            span.from = Math.min(span.from, at);
            span.to = Math.max(span.to, at);
          }
        });
      }
      const edges = spans.flatMap((span) => [
        { at: span.from, step: 1 },
        { at: span.to, step: -1 },
      ]);
      // Starts before ends at the same instant, so touching spans count as overlapping (strict).
      edges.sort((a, b) => a.at - b.at || b.step - a.step);
      let open = 0;
      let atOnce = 0;
      for (const edge of edges) {
        open += edge.step;
        atOnce = Math.max(atOnce, open);
      }
      if (reset) callTimes = new Map();
      return { cycles: spans.length, atOnce, spansMs: spans.map((span) => Math.round(span.to - span.from)) };
    },
    /** One new notification for each of the first `count` accounts. */
    notify: ({ count }) => {
      for (let i = 0; i < Number(count); i++)
        sandbox.control.addNotification({
          accountId: accountIds[i]!,
          title: "Maintenance",
          body: `window ${Date.now()}`,
        });
      return { added: Number(count) };
    },
  });
  process.send!({ ready: true, url: `http://127.0.0.1:${port}`, keys, accountIds });
});
