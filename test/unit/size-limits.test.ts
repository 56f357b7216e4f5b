import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { tsFiles } from "../kit/source-files";

/**
 * The house's limits, measured on the formatted code (npm run format): no file of src/ over 300
 * lines and no function over 80, unless docs/architecture.md names it, with a reason, under
 * "Over the limits" (a line "- `path` …" for a file, "- `path#function` …" for a function). A
 * named exception that no longer exceeds its limit must be struck from the list, so the list
 * cannot outlive what it excuses.
 */
const ROOT = resolve(__dirname, "../..");
const SRC = join(ROOT, "src");
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

/** The name a function goes by: its own, its variable's or property's, else "<the function around it>/callback" (stable across edits). */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  for (let outer: ts.Node | undefined = parent; outer; outer = outer.parent) {
    if (ts.isFunctionLike(outer) && !ts.isFunctionTypeNode(outer))
      return `${functionName(outer as ts.FunctionLikeDeclaration, source)}/callback`;
  }
  return "(top level)/callback";
}

/** Every file over the file limit ("path") and every function over the function limit ("path#name"), with its lines. */
export function overTheLimits(root = SRC): Map<string, number> {
  const over = new Map<string, number>();
  for (const file of tsFiles(root)) {
    const text = readFileSync(file, "utf8");
    const path = relative(ROOT, file);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_FILE_LINES) over.set(path, lines);
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessor(node) ||
        ts.isSetAccessor(node)
      ) {
        if (node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (end - start + 1 > MAX_FUNCTION_LINES) over.set(`${path}#${functionName(node, source)}`, end - start + 1);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return over;
}

/** The exceptions docs/architecture.md names under "Over the limits": path or path#function → its reason. */
export function namedExceptions(doc: string): Map<string, string> {
  const section = /^#{2,4} Over the limits\n([\s\S]*?)(?=^#{1,4} |(?![\s\S]))/m.exec(doc)?.[1] ?? "";
  const named = new Map<string, string>();
  for (const match of section.matchAll(/^- `([^`]+)`[:,]?\s*(.*)$/gm)) named.set(match[1]!, match[2]!.trim());
  return named;
}

describe("the limits of src/", () => {
  const over = overTheLimits();
  const named = namedExceptions(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));

  it("measures what it checks", () => {
    const all = overTheLimits(join(SRC, "bot"));
    expect(tsFiles(SRC).length).toBeGreaterThan(100);
    expect([...all.keys()].every((key) => key.startsWith("src/bot/"))).toBe(true);
    expect(
      namedExceptions(
        "## Over the limits\n- `src/a.ts`: one reason\n- `src/b.ts#f` another\n\n## Next\n- `src/c.ts`: no",
      ),
    ).toEqual(
      new Map([
        ["src/a.ts", "one reason"],
        ["src/b.ts#f", "another"],
      ]),
    );
  });

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES} that docs/architecture.md does not name with a reason`, () => {
    const unexcused = [...over].filter(([key]) => !named.get(key)).map(([key, lines]) => `${key} (${lines} lines)`);
    expect(unexcused).toEqual([]);
  });

  it("names no exception that is within its limit now", () => {
    expect([...named.keys()].filter((key) => !over.has(key))).toEqual([]);
  });
});
