import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseYamlSubset, type YamlValue } from "../kit/yaml-subset";

/**
 * Alerts that reach a person: the shipped Alertmanager config (checked by Debian's amtool), and
 * compose's monitoring profile, whose start scripts are run here with sh (no container engine runs
 * on our build machines): Prometheus refuses to start without METRICS_TOKEN, Alertmanager without
 * its Telegram receiver's token and chat, and the config it starts with is the shipped one filled in.
 */
const run = promisify(execFile);
const SHIPPED = "deploy/alertmanager/alertmanager.yml";
const AMTOOL = [
  "/usr/bin/amtool",
  ...(process.env.PATH ?? "")
    .split(":")
    .filter(Boolean)
    .map((dir) => join(dir, "amtool")),
].find((path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
});
// Outside CI a machine without amtool skips, and says why; CI installs it, so there the test runs and fails.
const skipReason =
  !AMTOOL && process.env.CI !== "true"
    ? " (skipped: amtool not installed; apt-get install prometheus-alertmanager)"
    : "";
const maybe = skipReason ? it.skip : it;

type Compose = {
  services: Record<string, Record<string, YamlValue>>;
  configs: Record<string, { content?: string; file?: string }>;
  secrets: Record<string, Record<string, string>>;
};
const compose = parseYamlSubset(readFileSync("compose.yaml", "utf8")) as unknown as Compose;

/** A compose config's script as the container's sh gets it (compose turns `$$` into `$`), its paths moved by `paths`. */
function script(name: string, paths: Record<string, string>): string {
  let text = compose.configs[name]!.content!.replaceAll("$$", "$");
  for (const [from, to] of Object.entries(paths)) text = text.replaceAll(from, to);
  return text;
}

async function sh(text: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    const done = await run("/bin/sh", ["-c", text], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env } });
    return { code: 0, stderr: done.stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

function amtool(): string {
  if (!AMTOOL) throw new Error("amtool is not installed: apt-get install prometheus-alertmanager");
  return AMTOOL;
}

describe("alerts reach a person: Alertmanager in compose's monitoring profile", () => {
  maybe(`amtool accepts the shipped Alertmanager config${skipReason}`, async () => {
    const checked = await run(amtool(), ["check-config", SHIPPED]);
    expect(checked.stdout).toContain("SUCCESS");
    expect(checked.stdout).toContain("1 receivers");
  });

  it("Prometheus sends its alerts to compose's Alertmanager, which runs in the monitoring profile", () => {
    const prometheus = parseYamlSubset(readFileSync("deploy/prometheus/prometheus.yml", "utf8")) as unknown as {
      alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    };
    expect(prometheus.alerting.alertmanagers[0]!.static_configs[0]!.targets).toEqual(["alertmanager:9093"]);
    expect(compose.services.alertmanager!.profiles).toEqual(["monitoring"]);
    expect(compose.configs["alertmanager-config"]!.file).toBe(`./${SHIPPED}`);
    expect(compose.secrets["alert-telegram-bot-token"]).toEqual({ environment: "ALERT_TELEGRAM_BOT_TOKEN" });
  });

  it("Prometheus refuses to start without METRICS_TOKEN, and starts with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "monitoring-start-"));
    try {
      const start = script("prometheus-start", {
        "/etc/prometheus/metrics-token": join(dir, "metrics-token"),
        "exec /bin/prometheus": "exec echo started",
      });
      writeFileSync(join(dir, "metrics-token"), "");
      const refused = await sh(start, {});
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("METRICS_TOKEN is not set");
      writeFileSync(join(dir, "metrics-token"), "a-metrics-token-0123456789");
      expect((await sh(start, {})).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  maybe(
    `Alertmanager refuses to start without its Telegram token and chat, and starts with the shipped config filled in${skipReason}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "monitoring-start-"));
      const token = "7000000001:AAH-paging-bot-token_0123456789abcd";
      try {
        const filled = join(dir, "alertmanager.yml");
        const start = script("alertmanager-start", {
          "/run/secrets/alert-telegram-bot-token": join(dir, "token"),
          "/etc/alertmanager/alertmanager.shipped.yml": SHIPPED,
          "/tmp/alertmanager.yml": filled,
          "exec /bin/alertmanager": "exec echo started",
        });
        for (const env of [{}, { ALERT_TELEGRAM_CHAT_ID: "-1001234567890" }] as Array<Record<string, string>>) {
          const refused = await sh(start, env);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toContain("ALERT_TELEGRAM_BOT_TOKEN and ALERT_TELEGRAM_CHAT_ID must be set");
        }
        writeFileSync(join(dir, "token"), token);
        expect((await sh(start, {})).code).toBe(1);
        expect((await sh(start, { ALERT_TELEGRAM_CHAT_ID: "-1001234567890" })).code).toBe(0);
        const config = readFileSync(filled, "utf8");
        expect(config).toContain(`bot_token: ${token}\n`);
        expect(config).toContain("chat_id: -1001234567890\n");
        expect((await run(amtool(), ["check-config", filled])).stdout).toContain("SUCCESS");
        // The repository holds placeholders only.
        expect(readFileSync(SHIPPED, "utf8")).toMatch(
          /bot_token: ALERT_TELEGRAM_BOT_TOKEN\n\s+chat_id: -1 # ALERT_TELEGRAM_CHAT_ID/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
