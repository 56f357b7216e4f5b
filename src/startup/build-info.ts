import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Metrics } from "#src/metrics";
import { projectRoot } from "#src/paths";

/** Which build a replica runs: the package's version, the commit it was built from, the Node it runs on. */
export interface BuildInfo {
  version: string;
  commit: string;
  node_version: string;
}

/** The build's description: `version` from package.json, `commit` from GIT_COMMIT (the image's build argument), else "unknown". */
export function readBuildInfo(commit: string | undefined): BuildInfo {
  let version = "unknown";
  try {
    const parsed = JSON.parse(readFileSync(join(projectRoot(), "package.json"), "utf8")) as { version?: unknown };
    if (typeof parsed.version === "string") version = parsed.version;
  } catch {
    // A package.json that cannot be read names no version; the metric still says which commit and Node.
  }
  return { version, commit: commit ?? "unknown", node_version: process.version };
}

/** Registers `bot_build_info{version,commit,node_version} 1`, so a dashboard or an alert can tell which build each replica runs. */
export function registerBuildInfo(metrics: Metrics, info: BuildInfo): void {
  metrics.labeledGauge(
    "bot_build_info",
    "The build this replica runs: package version, commit (GIT_COMMIT) and Node version; always 1",
    async () => [{ labels: { ...info }, value: 1 }],
  );
}
