import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The shape of src/, read from its imports (type imports included) in TypeScript and in the
 * browser code the playground and the dashboard bundle (.js): no circle between files, no circle
 * between the top-level folders, nothing in push/, db/, chat/ or marketplace/ reaches into bot/
 * (the bot is one front-end of what they hold, not something they build on), and nothing the
 * chat shows depends on the sandbox (the simulator of the marketplace).
 */
const SRC = resolve(__dirname, "../../src");
const NOT_INTO_BOT = ["push", "db", "chat", "marketplace"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

/** The project files a file imports (relative or #src/ specifiers), resolved as TypeScript does. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g,
  )) {
    const specifier = match[1] ?? match[2]!;
    let base: string;
    if (specifier.startsWith(".")) base = resolve(dirname(file), specifier);
    else if (specifier.startsWith("#src/")) base = join(SRC, specifier.slice("#src/".length));
    else continue;
    // A .js specifier names a TypeScript file (Node's ESM resolution as TypeScript reads it) or, in the browser code, itself.
    const stem = base.replace(/\.js$/, "");
    const target = [`${stem}.ts`, join(stem, "index.ts"), ...(base.endsWith(".js") ? [base] : [])].find((candidate) =>
      existsSync(candidate),
    );
    if (target) found.push(target);
  }
  return found;
}

/** The strongly connected groups of more than one node (Tarjan), as lists of nodes. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || graph.get(node)?.has(node)) groups.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return groups;
}

const files = sourceFiles(SRC);
const fileGraph = new Map(
  files.map((file) => [relative(SRC, file), new Set(importsOf(file).map((target) => relative(SRC, target)))]),
);
const folderOf = (path: string) => path.split("/")[0]!.replace(/\.ts$/, "");

describe("the shape of src/", () => {
  it("reads the imports it checks", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(fileGraph.get("bot/create-bot.ts")).toContain("bot/context.ts");
    expect(fileGraph.get("push/digest.ts")).toContain("reports/report.ts");
    expect(fileGraph.get("playground/web/main.js")).toContain("playground/web/connection.js");
    expect(fileGraph.get("miniapp/web/main.js")?.size ?? 0).toBeGreaterThan(0);
  });

  it("has no circle between files", () => {
    expect(circles(fileGraph)).toEqual([]);
  });

  it("has no circle between its top-level folders", () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of fileGraph) {
      const from = folderOf(file);
      if (!folders.has(from)) folders.set(from, new Set());
      for (const target of targets) if (folderOf(target) !== from) folders.get(from)!.add(folderOf(target));
    }
    expect(circles(folders)).toEqual([]);
  });

  it("reaches another top-level folder through #src/ (package.json's subpath imports), never ../../", () => {
    const climbing = files.flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return [...text.matchAll(/\bfrom\s+"(\.\.\/[^"]+)"/g)]
        .filter((match) => {
          const target = relative(SRC, resolve(dirname(file), match[1]!));
          return !target.startsWith("..") && folderOf(target) !== folderOf(relative(SRC, file));
        })
        .map((match) => `${relative(SRC, file)}: ${match[1]}`);
    });
    expect(climbing).toEqual([]);
  });

  it("has nothing of chat/ import from sandbox/", () => {
    const arrows = [...fileGraph].flatMap(([file, targets]) =>
      folderOf(file) === "chat"
        ? [...targets].filter((target) => folderOf(target) === "sandbox").map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(arrows).toEqual([]);
  });

  it("has no arrow from push/, db/, chat/ or marketplace/ into bot/", () => {
    const arrows = [...fileGraph].flatMap(([file, targets]) =>
      NOT_INTO_BOT.includes(folderOf(file))
        ? [...targets].filter((target) => folderOf(target) === "bot").map((target) => `${file} -> ${target}`)
        : [],
    );
    expect(arrows).toEqual([]);
  });
});
