import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { tsFiles } from "../kit/source-files";
import { FLOW_VERSION } from "#src/db/repos/flows";

/**
 * FLOW_VERSION (db/repos/flows.ts) moves whenever a guided flow's steps change, so a flow in
 * progress is never replayed against code that asks other questions (its user is told the step
 * expired instead; docs/decisions.md, and test/e2e/flows-resume.test.ts shows it).
 *
 * A flow's steps are the code of every function that takes the conversation (a parameter typed
 * `Guided`): the conversations plugin replays exactly what those functions do. Each is
 * fingerprinted from its tokens (comments and layout left out, so a reformatting moves nothing)
 * and compared with test/fixtures/flow-fingerprints.json, recorded for one version. A change with
 * the same version fails; after bumping FLOW_VERSION, record the new fingerprints with
 * `RECORD_FLOW_FINGERPRINTS=1 npx vitest run test/unit/flow-version.test.ts`.
 */
const SRC = resolve(__dirname, "../../src");
const RECORD = resolve(__dirname, "../fixtures/flow-fingerprints.json");

/**
 * The tokens of `text`, comments and whitespace left out, joined by spaces, with what a formatter
 * may change dropped too: a comma before a closing bracket, parentheses (which it adds around an
 * arrow's parameter and drops where redundant), and a string's quotes (its value is kept).
 */
function tokensOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const tokens: Array<{ kind: ts.SyntaxKind; text: string }> = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const literal = kind === ts.SyntaxKind.StringLiteral || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral;
    tokens.push({ kind, text: literal ? JSON.stringify(scanner.getTokenValue()) : scanner.getTokenText() });
  }
  const closers = new Set([
    ts.SyntaxKind.CloseParenToken,
    ts.SyntaxKind.CloseBracketToken,
    ts.SyntaxKind.CloseBraceToken,
    ts.SyntaxKind.GreaterThanToken,
  ]);
  const parens = new Set([ts.SyntaxKind.OpenParenToken, ts.SyntaxKind.CloseParenToken]);
  return tokens
    .filter(
      (token, index) =>
        !parens.has(token.kind) &&
        !(token.kind === ts.SyntaxKind.CommaToken && closers.has(tokens[index + 1]?.kind ?? ts.SyntaxKind.Unknown)),
    )
    .map((token) => token.text)
    .join(" ");
}

const takesConversation = (node: ts.SignatureDeclarationBase) =>
  node.parameters.some(
    (parameter) =>
      parameter.type !== undefined &&
      ts.isTypeReferenceNode(parameter.type) &&
      parameter.type.typeName.getText() === "Guided",
  );

/** "file#name" → hash, for every function of src/bot that takes the conversation. */
export function flowFingerprints(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const file of tsFiles(join(SRC, "bot"))) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        (ts.isFunctionDeclaration(node) ||
          ts.isFunctionExpression(node) ||
          ts.isArrowFunction(node) ||
          ts.isMethodDeclaration(node)) &&
        takesConversation(node)
      ) {
        const name =
          node.name?.getText() ??
          (ts.isVariableDeclaration(node.parent)
            ? node.parent.name.getText()
            : `line ${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
        found[`${relative(SRC, file)}#${name}`] = createHash("sha256")
          .update(tokensOf(node.getText()))
          .digest("hex")
          .slice(0, 16);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("the guided flows' version", () => {
  const now = flowFingerprints();
  if (process.env.RECORD_FLOW_FINGERPRINTS === "1")
    writeFileSync(RECORD, `${JSON.stringify({ version: FLOW_VERSION, fingerprints: now }, null, 2)}\n`);
  const recorded = JSON.parse(readFileSync(RECORD, "utf8")) as {
    version: number;
    fingerprints: Record<string, string>;
  };

  it("finds the flows it fingerprints", () => {
    for (const flow of [
      "quoteConversation",
      "buyConversation",
      "ruleConversation",
      "addressLabelConversation",
      "watch",
      "collectOrder",
      "answer",
    ]) {
      expect(Object.keys(now).some((key) => key.endsWith(`#${flow}`))).toBe(true);
    }
  });

  it("is the version the fingerprints were recorded for (bump it and record them again when a flow changes)", () => {
    expect(recorded.version, "FLOW_VERSION moved: record the fingerprints again (RECORD_FLOW_FINGERPRINTS=1)").toBe(
      FLOW_VERSION,
    );
    expect(
      now,
      `a guided flow's steps changed with FLOW_VERSION still ${FLOW_VERSION}: bump it in src/db/repos/flows.ts, then RECORD_FLOW_FINGERPRINTS=1 npx vitest run test/unit/flow-version.test.ts`,
    ).toEqual(recorded.fingerprints);
  });

  it("ignores comments and layout, and sees a changed step", () => {
    expect(tokensOf("await  conversation.wait(); // a comment\n")).toBe(tokensOf("await conversation.wait();"));
    expect(tokensOf("f(a, b,\n);\nconst g = (x) => [x,];\nh('s');")).toBe(
      tokensOf('f(a, b);\nconst g = x => [x];\nh("s");'),
    );
    expect(tokensOf("await conversation.wait();")).not.toBe(tokensOf("await conversation.external();"));
  });
});
