import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "#src/bot/features/start/index";

/**
 * docs/architecture.md against the code, so the doc cannot drift: the middleware order, the
 * command list, the code map (every folder of src/, and no folder that does not exist) and where
 * "A table" says a table's row type goes.
 */
const ROOT = resolve(__dirname, "../..");
const SRC = join(ROOT, "src");
const DOC = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

/** The lines of the doc's section under `heading` (a `## ` heading), up to the next one. */
function section(heading: string): string[] {
  const lines = DOC.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  expect(start, `docs/architecture.md has a "## ${heading}" section`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/**
 * The names of the middleware `createBot` puts on its chain, in the order they run: each
 * `chain.use(name(…))` by the function that makes it, a middleware written in place by the local
 * function that installs it, and the local functions createBot calls with the chain followed in.
 */
function chainOrder(): string[] {
  const path = join(SRC, "bot/create-bot.ts");
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const functions = new Map<string, ts.FunctionDeclaration>();
  for (const statement of file.statements)
    if (ts.isFunctionDeclaration(statement) && statement.name) functions.set(statement.name.text, statement);
  const order: string[] = [];
  const walk = (node: ts.Node, owner: string): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (
        ts.isPropertyAccessExpression(callee) &&
        callee.expression.getText() === "chain" &&
        callee.name.text === "use"
      ) {
        const made = node.arguments[0]!;
        order.push(ts.isCallExpression(made) ? made.expression.getText() : owner);
        return;
      }
      const local = ts.isIdentifier(callee) ? functions.get(callee.text) : undefined;
      if (local && node.arguments.some((argument) => argument.getText() === "chain")) {
        ts.forEachChild(local.body!, (child) => walk(child, callee.getText()));
        return;
      }
    }
    ts.forEachChild(node, (child) => walk(child, owner));
  };
  walk(functions.get("createBot")!.body!, "createBot");
  return order;
}

/** Every backticked identifier of the doc's middleware list, in order. */
function documentedChain(): string[] {
  const lines = section("The walk of an update");
  const start = lines.findIndex((line) => line.includes("runs the middleware in this order"));
  expect(start, "the walk of an update gives the middleware order").toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((line, index) => index > start && /^\d+\. /.test(line));
  const list = lines.slice(start + 1, end).join("\n");
  return [...list.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]!);
}

/** Every folder under src/, relative to it ("bot", "bot/features", …), down to `depth` levels. */
function srcFolders(folder = "", depth = 2): string[] {
  if (depth === 0) return [];
  return readdirSync(join(SRC, folder))
    .filter((name) => statSync(join(SRC, folder, name)).isDirectory())
    .flatMap((name) => {
      const path = folder ? `${folder}/${name}` : name;
      return [path, ...srcFolders(path, depth - 1)];
    });
}

interface MapEntry {
  /** The folder the entry describes, relative to the repository ("src/db", "test"). */
  folder: string;
  /** The entry's text, its continuation lines included. */
  text: string;
}

/** The code map's entries for folders: `src/` entries (two spaces in) and the repository's own. */
function codeMapEntries(): MapEntry[] {
  const lines = section("The code map");
  const block = lines.slice(lines.indexOf("```") + 1, lines.lastIndexOf("```"));
  const entries: MapEntry[] = [];
  let current: MapEntry | null = null;
  for (const line of block) {
    const named = /^( {0,2})(\S+)\s*(.*)$/.exec(line);
    if (named) {
      const [, indent, name] = named;
      current =
        name!.endsWith("/") && name !== "src/"
          ? { folder: `${indent ? "src/" : ""}${name!.slice(0, -1)}`, text: line }
          : null;
      if (current) entries.push(current);
    } else if (current) current.text += `\n${line}`;
  }
  return entries;
}

/** Folder names an entry's text gives (`guided/`, `features/order-params/`), placeholders and file paths left out. */
function foldersNamedIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w./<>-])((?:[a-z][\w-]*\/)+)(?![\w<.-])/g)].map((match) => match[1]!.slice(0, -1));
}

describe("docs/architecture.md", () => {
  it("gives the middleware in the order bot/create-bot.ts puts them on the chain", () => {
    const code = chainOrder();
    expect(code.slice(0, 3)).toEqual(["countUpdatesInFlight", "doubleTapGuard", "sequentialize"]);
    expect(documentedChain()).toEqual(code);
  });

  it("lists the commands of COMMANDS (bot/features/start/index.ts), in its order", () => {
    const paragraph = DOC.split("\n\n").find((part) => part.startsWith("**The commands**"));
    expect(paragraph, 'a paragraph starting "**The commands**"').toBeDefined();
    expect(paragraph).toContain("`COMMANDS` in `src/bot/features/start/index.ts`");
    const listed = [...paragraph!.slice(paragraph!.indexOf(":")).matchAll(/\/([a-z]+)/g)].map((match) => match[1]);
    expect(listed).toEqual([...COMMANDS]);
  });

  it("has a code map entry for every folder of src/, and names each of their folders", () => {
    const entries = codeMapEntries();
    const unmapped = srcFolders().filter((folder) => {
      const [top, sub] = folder.split("/");
      const entry = entries.find((candidate) => candidate.folder === `src/${top}`);
      return (
        !entry ||
        (sub !== undefined && !foldersNamedIn(entry.text).some((named) => named === sub || named.startsWith(`${sub}/`)))
      );
    });
    expect(unmapped).toEqual([]);
  });

  it("names no folder in its code map that does not exist", () => {
    const missing = codeMapEntries().flatMap((entry) => {
      const own = existsSync(join(ROOT, entry.folder)) ? [] : [entry.folder];
      const named = foldersNamedIn(entry.text.slice(entry.text.indexOf("/") + 1)).filter(
        (folder) => ![join(ROOT, entry.folder), SRC, ROOT].some((base) => existsSync(join(base, folder))),
      );
      return [...own, ...named.map((folder) => `${entry.folder}: ${folder}/`)];
    });
    expect(missing).toEqual([]);
  });

  it('says in "A table" where row types go: db/tables/<table>.ts, joined into Database in db/schema.ts', () => {
    const recipe = section("Where a new thing goes").find((line) => line.startsWith("- **A table**"));
    expect(recipe).toBeDefined();
    const text = section("Where a new thing goes").slice(section("Where a new thing goes").indexOf(recipe!)).join("\n");
    expect(text).toContain("`db/tables/<table>.ts`");
    expect(text).toContain("`Database` in `db/schema.ts`");
    // Which is what the code does: every file of db/tables/ is a table type that Database holds.
    const schema = readFileSync(join(SRC, "db/schema.ts"), "utf8");
    const database = schema.slice(schema.indexOf("export interface Database"));
    for (const file of readdirSync(join(SRC, "db/tables"))) {
      const table = /export interface (\w+Table)\b/.exec(readFileSync(join(SRC, "db/tables", file), "utf8"))?.[1];
      expect(table, file).toBeDefined();
      expect(schema).toContain(`from "./tables/${file.replace(/\.ts$/, "")}"`);
      expect(database).toMatch(new RegExp(`: ${table};`));
    }
  });

  it("explains the gap in the migrations' numbers", () => {
    const numbers = readdirSync(join(ROOT, "migrations"))
      .map((name) => /^(\d{3})-/.exec(name)?.[1])
      .filter((number): number is string => number !== undefined)
      .map(Number);
    const gaps = Array.from({ length: Math.max(...numbers) }, (_, index) => index + 1).filter(
      (number) => !numbers.includes(number),
    );
    for (const gap of gaps)
      expect(DOC, `migration ${String(gap).padStart(3, "0")} is missing`).toContain(
        `Migration ${String(gap).padStart(3, "0")} does not exist`,
      );
  });
});
