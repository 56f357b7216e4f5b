/**
 * The bench's results: the JSON `npm run bench` writes, its table and its exit code. Run alone,
 * `npx tsx bench/report.ts [bench/results/latest.json] [--explore]` prints a results file's table
 * again and exits as the run did: 2 when a target was missed; with `--readme` it also writes the
 * table into bench/README.md between its results markers (the table there is always a committed
 * latest.json's).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, exitCode, isMet, summarize, type Figure, type Summary } from "./lib";
import { resultsPath } from "./parts";

export interface Machine {
  cores: number;
  cpu: string;
  memoryGb: number;
  platform: string;
  node: string;
}

export interface BenchResult {
  date: string;
  machine: Machine;
  command: string;
  quick: boolean;
  explore: boolean;
  seconds: number;
  /** The parts that ran (BENCH_ONLY). */
  parts: string[];
  summary: Summary;
  figures: Figure[];
}

export function machine(): Machine {
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? "unknown",
    memoryGb: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
    node: process.version,
  };
}

/** Exploring keeps the old behaviour: every figure printed, exit 0 whatever was missed. */
export function exploring(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): boolean {
  return argv.includes("--explore") || env.BENCH_EXPLORE === "1";
}

export function result(input: Omit<BenchResult, "summary" | "machine" | "date"> & { date?: Date }): BenchResult {
  const { date, ...rest } = input;
  return { date: (date ?? new Date()).toISOString(), machine: machine(), ...rest, summary: summarize(input.figures) };
}

/** Writes the run's JSON where resultsPath says (never over latest.json for a run of some parts); returns the path. */
export function writeResults(run: BenchResult, env: NodeJS.ProcessEnv = process.env): string {
  const out = resultsPath(join(BENCH_DIR, "results"), env);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(run, null, 2)}\n`);
  return out;
}

function cell(text: string | number): string {
  return String(text).replaceAll("|", "\\|");
}

/** The markdown table: targets first as they ran, a met column only where a figure is a target. */
export function table(figures: Figure[]): string[] {
  const lines = [
    "| figure | value | unit | reference | ref. value | ratio | target | met |",
    "|---|---:|---|---|---:|---:|---|---|",
  ];
  for (const f of figures) {
    const met = isMet(f);
    lines.push(
      `| ${cell(f.name)} | ${f.value ?? "not run"} | ${cell(f.unit)} | ${cell(f.reference)} | ${f.referenceValue ?? "–"} | ${f.ratio ?? "–"} | ${cell(f.target)} | ${met === null ? "" : met ? "yes" : "**no**"} |`,
    );
  }
  return lines;
}

export function summaryLine(summary: Summary): string {
  const missed = summary.missed.length > 0 ? `; missed: ${summary.missed.join(", ")}` : "";
  return `${summary.met}/${summary.targets} targets met (${summary.informational} informational figures, not counted)${missed}`;
}

/** Prints the machine line, the table and the summary; returns the exit code. */
export function report(run: BenchResult, explore: boolean, print: (line: string) => void = console.log): number {
  print(
    `machine: ${run.machine.cores} cores (${run.machine.cpu}), ${run.machine.memoryGb} GB, ${run.machine.platform}, Node ${run.machine.node}; ${run.date}; ${run.seconds} s; command: ${run.command}`,
  );
  for (const line of table(run.figures)) print(line);
  const code = exitCode(run.figures, explore);
  const summary = summarize(run.figures);
  print("");
  print(summaryLine(summary));
  if (summary.missed.length > 0)
    print(
      explore
        ? "exploring (--explore or BENCH_EXPLORE=1): exit 0 although a target was missed"
        : "a target was missed: exit 2 (--explore or BENCH_EXPLORE=1 to explore without failing)",
    );
  return code;
}

export const README_START =
  "<!-- bench results: written by `npx tsx bench/report.ts --readme` from bench/results/latest.json -->";
export const README_END = "<!-- end of bench results -->";

/** The README's block: the run's machine, command and summary, then its table. */
export function readmeBlock(run: BenchResult): string {
  const m = run.machine;
  return [
    README_START,
    "",
    `Run ${run.date} on ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, ${m.platform}, Node ${m.node}, ${run.seconds} s: \`${run.command}\` (parts: ${run.parts.join(", ")}). ${summaryLine(run.summary)}.`,
    "",
    ...table(run.figures),
    "",
    README_END,
  ].join("\n");
}

/** Replaces the block between the markers in `readme` (which must hold both). */
export function withResults(readme: string, run: BenchResult): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error("bench/README.md has no results markers");
  return readme.slice(0, start) + readmeBlock(run) + readme.slice(end + README_END.length);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const path = process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? join(BENCH_DIR, "results", "latest.json");
  const run = JSON.parse(readFileSync(path, "utf8")) as BenchResult;
  process.exitCode = report(run, exploring());
  if (process.argv.includes("--readme")) {
    const readme = join(BENCH_DIR, "README.md");
    writeFileSync(readme, withResults(readFileSync(readme, "utf8"), run));
    console.log(`written: ${readme}`);
  }
}
