import { spawn, execFile, type ChildProcess } from "node:child_process";
import { accessSync, constants, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { linkedUser, startWorld, type World } from "../kit/world";
import { parseYamlSubset } from "../kit/yaml-subset";

/**
 * The monitoring the project ships (deploy/prometheus, deploy/grafana), run for real: promtool
 * checks the config and the rules and runs their unit tests, then Debian's Prometheus scrapes a
 * running bot and answers every expression the rules and the dashboard use.
 */
const run = promisify(execFile);
const DEPLOY = resolve("deploy/prometheus");
const JOB = "tron-energy-bot";
/** The first non-internal IPv4 address of this machine, if it has one. */
const NON_LOOPBACK = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === "IPv4" && !address.internal)?.address;

function installed(tool: string): string | null {
  for (const dir of [...(process.env.PATH ?? "").split(":"), "/usr/bin"]) {
    if (!dir) continue;
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return join(dir, tool);
    } catch {
      // not in this directory
    }
  }
  return null;
}

const missing = ["promtool", "prometheus"].filter((tool) => !installed(tool));
// Outside CI a machine without Prometheus skips, and says why; CI installs it, so there the test runs and fails.
const skipReason =
  missing.length > 0 && process.env.CI !== "true"
    ? ` (skipped: ${missing.join(" and ")} not installed; apt-get install prometheus)`
    : "";
const maybe = skipReason ? it.skip : it;

function tool(name: string): string {
  const path = installed(name);
  if (!path)
    throw new Error(
      `${name} is not installed: apt-get install prometheus (Debian's package brings prometheus and promtool)`,
    );
  return path;
}

interface Rule {
  alert: string;
  expr: string;
}
const rules = (
  parseYamlSubset(readFileSync(join(DEPLOY, "alerts.yml"), "utf8")) as unknown as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(readFileSync("deploy/grafana/dashboard.json", "utf8")) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const panelQueries = dashboard.panels.flatMap((panel) =>
  panel.targets.map((target) => ({ title: panel.title, expr: target.expr })),
);

/** The selectors an expression holds, each as the metric and its job (every selector in the shipped files names its job). */
function selectedSeries(expr: string): string[] {
  return [
    ...new Set(
      [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{job="([^"]+)"/g)].map(
        (match) => `${match[1]!}{job="${match[2]!}"}`,
      ),
    ),
  ];
}

/** Metrics only webhook mode exports (getWebhookInfo's view); this bot polls, and test/e2e/webhook-info.test.ts reads them. */
const WEBHOOK_MODE_ONLY = ["telegram_webhook_pending_updates"];
const TEST_FILES = ["alerts.test.yml", "silent-failures.test.yml"];

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: unknown[] };
}

async function query(base: string, expr: string): Promise<QueryAnswer> {
  const answer = await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  return (await answer.json()) as QueryAnswer;
}

const hasData = (answer: QueryAnswer) => answer.status === "success" && (answer.data?.result.length ?? 0) > 0;

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((done) => setTimeout(done, 250));
  }
}

interface RunningPrometheus {
  base: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus with the shipped scrape jobs (names, paths, the bearer authorization of the
 * first, none on the refusals job) and rules, pointed at `target`, scraping and evaluating every
 * second, with `token` in its token file.
 */
async function startPrometheus(target: string, token: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), "prometheus-live-"));
  const jobs = (
    parseYamlSubset(readFileSync(join(DEPLOY, "prometheus.yml"), "utf8")) as unknown as {
      scrape_configs: Array<{ job_name: string; metrics_path: string; authorization?: { type: string } }>;
    }
  ).scrape_configs;
  const [shipped, refusals] = [jobs[0]!, jobs[1]!];
  expect(shipped.job_name).toBe(JOB);
  expect(refusals.authorization).toBeUndefined();
  writeFileSync(join(dir, "metrics-token"), token);
  const lines = [
    "global: { scrape_interval: 1s, evaluation_interval: 1s }",
    `rule_files: [${JSON.stringify(join(DEPLOY, "alerts.yml"))}]`,
    "scrape_configs:",
    `  - job_name: ${shipped.job_name}`,
    `    metrics_path: ${shipped.metrics_path}`,
    `    authorization: { type: ${shipped.authorization!.type}, credentials_file: ${JSON.stringify(join(dir, "metrics-token"))} }`,
    `    static_configs: [{ targets: [${JSON.stringify(target)}] }]`,
    `  - job_name: ${refusals.job_name}`,
    `    metrics_path: ${refusals.metrics_path}`,
    `    static_configs: [{ targets: [${JSON.stringify(target)}] }]`,
  ];
  writeFileSync(join(dir, "prometheus.yml"), `${lines.join("\n")}\n`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const prometheus: ChildProcess = spawn(
    tool("prometheus"),
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  prometheus.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  prometheus.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (prometheus.exitCode === null) {
      const exited = new Promise((done) => prometheus.once("exit", done));
      prometheus.kill("SIGTERM");
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))]);
      if (prometheus.exitCode === null) prometheus.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  if (!(await waitUntil(async () => (await fetch(`${base}/-/ready`)).ok, 15_000))) {
    await stop();
    throw new Error(`Prometheus did not get ready:\n${output}`);
  }
  return { base, output: () => output, stop };
}

describe("monitoring: Prometheus with the shipped rules, scraping a running bot", () => {
  it("every alert links its runbook, a section of docs/operations.md of its own name", () => {
    const shipped = readFileSync(join(DEPLOY, "alerts.yml"), "utf8");
    const runbooks = readFileSync("docs/operations.md", "utf8");
    const sections = [...runbooks.matchAll(/^### (Bot\w+)$/gm)].map((match) => match[1]);
    expect(sections.sort()).toEqual(rules.map((rule) => rule.alert).sort());
    for (const rule of rules) {
      const block = shipped.slice(shipped.indexOf(`- alert: ${rule.alert}\n`)).split(/\n\s+- alert: /)[0]!;
      expect(block, rule.alert).toContain(`runbook_url: docs/operations.md#${rule.alert.toLowerCase()}`);
    }
  });

  maybe(`promtool accepts the shipped config and rules, and every alert's unit test passes${skipReason}`, async () => {
    const promtool = tool("promtool");
    // The config reads its token file beside it, as in compose's monitoring profile.
    const dir = mkdtempSync(join(tmpdir(), "prometheus-config-"));
    try {
      for (const file of ["prometheus.yml", "alerts.yml"]) copyFileSync(join(DEPLOY, file), join(dir, file));
      writeFileSync(join(dir, "metrics-token"), "a-token\n");
      await run(promtool, ["check", "config", join(dir, "prometheus.yml")]);
      const checked = await run(promtool, ["check", "rules", join(DEPLOY, "alerts.yml")]);
      expect(checked.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
      const tested = await run(promtool, ["test", "rules", ...TEST_FILES], { cwd: DEPLOY });
      expect(tested.stdout).not.toContain("FAILED");
      expect(tested.stdout.match(/SUCCESS/g)).toHaveLength(TEST_FILES.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Each alert has a unit test that sees it fire.
    const tests = TEST_FILES.map((file) => readFileSync(join(DEPLOY, file), "utf8")).join("\n");
    for (const rule of rules)
      expect(tests, rule.alert).toMatch(new RegExp(`alertname: ${rule.alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
  });

  maybe(
    `answers every expression of the rules and the dashboard with data after scraping the bot${skipReason}`,
    async () => {
      const token = randomBytes(24).toString("hex");
      let world: World | null = null;
      let prometheus: RunningPrometheus | null = null;
      try {
        world = await startWorld({ env: { METRICS_TOKEN: token, NOTIFICATIONS_POLL: "* * * * * *" } });
        prometheus = await startPrometheus(new URL(world.app.url).host, token);
        const { base } = prometheus;
        const output = () => prometheus!.output();

        // Some traffic: updates through the fake Telegram, marketplace calls (linking a key), a refused webhook.
        const visitor = world.user(4401);
        visitor.send("/start");
        await visitor.nextMessage();
        const { user } = await linkedUser(world, 4402);
        user.send("/help");
        await user.nextMessage();
        await fetch(`${world.app.url}/webhooks/marketplace/not-a-token`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });

        expect(
          await waitUntil(
            async () =>
              (await query(base, `up{job="${JOB}"}`)).data?.result.length === 1 &&
              hasData(await query(base, `sum(rate(bot_updates_handled_total{job="${JOB}"}[5m]))`)),
            15_000,
          ),
          `no scrape of the bot:\n${output()}`,
        ).toBe(true);
        // Every panel's query has data once a few scrapes came after the traffic (or the time is up).
        await waitUntil(async () => {
          for (const { expr } of panelQueries) if (!hasData(await query(base, expr))) return false;
          return true;
        }, 10_000);

        const up = await query(base, `up{job="${JOB}"}`);
        expect(
          (up.data!.result[0] as { value: [number, string] }).value[1],
          "the scrape succeeds with the bearer token",
        ).toBe("1");

        const problems: string[] = [];
        for (const { title, expr } of panelQueries) {
          const answer = await query(base, expr);
          if (answer.status !== "success") problems.push(`panel "${title}": ${expr} does not parse: ${answer.error}`);
          else if (!hasData(answer)) problems.push(`panel "${title}": ${expr} returned no data`);
        }
        for (const rule of rules) {
          const answer = await query(base, rule.expr);
          if (answer.status !== "success") problems.push(`rule ${rule.alert}: does not parse: ${answer.error}`);
          // A healthy bot fires none: the condition is empty, so its series are asked for instead.
          else if (hasData(answer))
            problems.push(`rule ${rule.alert}: fires on a healthy bot: ${JSON.stringify(answer.data!.result)}`);
          for (const series of selectedSeries(rule.expr)) {
            if (WEBHOOK_MODE_ONLY.some((metric) => series.startsWith(`${metric}{`))) continue;
            if (!hasData(await query(base, series))) problems.push(`rule ${rule.alert}: no series ${series}`);
          }
        }
        // Prometheus evaluated every rule without an error.
        const loaded = (await (await fetch(`${base}/api/v1/rules`)).json()) as {
          data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
        };
        const evaluated = loaded.data.groups.flatMap((group) => group.rules);
        expect(evaluated.map((rule) => rule.name).sort()).toEqual(rules.map((rule) => rule.alert).sort());
        for (const rule of evaluated)
          if (rule.health !== "ok") problems.push(`rule ${rule.name}: health ${rule.health} ${rule.lastError ?? ""}`);
        expect(problems).toEqual([]);
      } finally {
        await prometheus?.stop();
        await world?.stop();
      }
    },
    60_000,
  );

  // Loopback needs no token, so Prometheus scrapes the bot on this machine's network address.
  const refusedSkip =
    skipReason || (NON_LOOPBACK ? "" : " (skipped: this machine has no network address besides loopback)");
  (refusedSkip ? it.skip : it)(
    `names the token when the bot refuses Prometheus's scrapes: BotMetricsTokenRefused's condition holds, for that replica and reason${refusedSkip}`,
    async () => {
      let world: World | null = null;
      let prometheus: RunningPrometheus | null = null;
      try {
        world = await startWorld({ env: { METRICS_TOKEN: randomBytes(24).toString("hex"), HOST: "0.0.0.0" } });
        const target = `${NON_LOOPBACK!}:${new URL(world.app.url).port}`;
        // Prometheus holds a token that is not the bot's.
        prometheus = await startPrometheus(target, randomBytes(24).toString("hex"));
        const { base } = prometheus;
        const rule = rules.find((each) => each.alert === "BotMetricsTokenRefused")!;
        const firing = async () =>
          (await query(base, rule.expr)).data?.result as Array<{ metric: Record<string, string> }> | undefined;
        expect(
          await waitUntil(async () => ((await firing())?.length ?? 0) > 0, 15_000),
          `the condition never held:\n${prometheus.output()}`,
        ).toBe(true);
        expect((await firing())!.map((each) => each.metric)).toEqual([
          { instance: target, reason: "metrics_unauthorized" },
        ]);
        expect((await query(base, `up{job="${JOB}"}`)).data?.result).toMatchObject([
          { value: [expect.anything(), "0"] },
        ]);
      } finally {
        await prometheus?.stop();
        await world?.stop();
      }
    },
    60_000,
  );
});
