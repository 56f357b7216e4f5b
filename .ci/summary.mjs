// Prints the "N passed, M failed" line of a CI run, per database and in total, from each test run's
// counts (written by .ci/count-reporter.mjs) and vitest's exit code. Anything that is not a clean
// pass counts as at least one failure, so the line can only read "0 failed" when every run was:
// - a run that left no counts file (vitest crashed, was killed, or its global set-up threw): 1;
// - each failed test; each file or suite whose own code failed (an import, a beforeAll): 1 each;
// - each unhandled error (a crashed worker, an unhandled rejection): 1 each;
// - each file that never finished; a run interrupted before its end: 1;
// - each skipped test whose name (or skip note) does not say why it was skipped: 1 each;
// - a non-zero exit code that none of the above explains: 1.
// Usage: node .ci/summary.mjs <label>=<counts file>:<exit code> ... [--steps-failed N]
// Exits 1 when anything failed, so a caller cannot miss it.
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** A skipped test says why in its name ("… (skipped: needs PostgreSQL)") or in its skip note. */
const SAYS_WHY = /\bskipped\b/i;

/** One run's figures: { passed, failed, reasons } from its counts (or null when none were written). */
export function judgeRun(counts, exitCode) {
  const reasons = [];
  if (counts === null) {
    reasons.push("no test report was written (vitest crashed, was killed, or its set-up failed)");
    return { passed: 0, failed: 1, reasons };
  }
  let failed = counts.failed;
  if (counts.failed > 0) {
    const named = (counts.failedTests ?? []).slice(0, 10).map((test) => `${test.file} > ${test.name}: ${test.error}`);
    reasons.push(`${counts.failed} failed test(s)${named.length ? `: ${named.join(" | ")}` : ""}`);
  }
  for (const file of counts.failedFiles) {
    failed += file.errors;
    reasons.push(`${file.file}: its own code failed (an import or a hook)`);
  }
  if (counts.unhandledErrors > 0) {
    failed += counts.unhandledErrors;
    reasons.push(`${counts.unhandledErrors} unhandled error(s) (a crashed worker or an unhandled rejection)`);
  }
  if (counts.unfinishedFiles.length > 0) {
    failed += counts.unfinishedFiles.length;
    reasons.push(`files that never finished: ${counts.unfinishedFiles.join(", ")}`);
  }
  const unexplained = counts.skipped.filter((test) => !SAYS_WHY.test(`${test.name} ${test.note ?? ""}`));
  if (unexplained.length > 0) {
    failed += unexplained.length;
    reasons.push(
      `skipped without a reason in the name: ${unexplained.map((test) => `${test.file} > ${test.name}`).join(", ")}`,
    );
  }
  if (counts.reason === "interrupted" && failed === 0) {
    failed = 1;
    reasons.push("the run was interrupted");
  }
  if (exitCode !== 0 && failed === 0) {
    failed = 1;
    reasons.push(`vitest exited ${exitCode} with no failure it reported`);
  }
  return { passed: counts.passed, failed, reasons };
}

function readCounts(file) {
  if (!existsSync(file)) return null;
  try {
    const counts = JSON.parse(readFileSync(file, "utf8"));
    return typeof counts.passed === "number" && typeof counts.failed === "number" ? counts : null;
  } catch {
    return null;
  }
}

/** Lines to print for runs given as { label, file, exitCode }, and whether anything failed. */
export function summarize(runs, stepsFailed = 0) {
  const lines = [];
  let passed = 0;
  let failed = stepsFailed;
  for (const run of runs) {
    const judged = judgeRun(readCounts(run.file), run.exitCode);
    passed += judged.passed;
    failed += judged.failed;
    lines.push(
      `${run.label}: ${judged.passed} passed, ${judged.failed} failed${judged.reasons.length ? ` (${judged.reasons.join("; ")})` : ""}`,
    );
  }
  if (stepsFailed > 0) lines.push(`steps before or between the test runs: ${stepsFailed} failed`);
  lines.push(`${passed} passed, ${failed} failed`);
  return { lines, failed };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  let stepsFailed = 0;
  const runs = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--steps-failed") {
      stepsFailed = Number(args[++i] ?? "1") || 0;
      continue;
    }
    const match = /^([^=]+)=(.+):(-?\d+)$/.exec(args[i]);
    if (!match) {
      console.error(`summary: cannot read the argument ${args[i]}`);
      process.exit(2);
    }
    runs.push({ label: match[1], file: match[2], exitCode: Number(match[3]) });
  }
  const { lines, failed } = summarize(runs, stepsFailed);
  for (const line of lines) console.log(line);
  process.exit(failed > 0 ? 1 : 0);
}
