import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tsFiles } from "../kit/source-files";
import {
  LEDGER_VIEW,
  MENU_DATA,
  MENU_IDS,
  RULE_LIST_VIEW,
  RULE_VIEW,
  SETTINGS_TAP,
  WATCH_VIEW,
} from "#src/chat/callback-data";

const SRC = resolve(__dirname, "../../src");

/**
 * Callback data and menu payloads have one registry (chat/callback-data.ts): every kind is
 * written and read back through it, and a reader takes exactly what its writer makes.
 */
describe("the callback data registry", () => {
  it("reads back what each menu payload writer writes, and nothing else", () => {
    expect(SETTINGS_TAP.parse(SETTINGS_TAP.data("l", "ru"))).toEqual({ what: "l", value: "ru" });
    expect(LEDGER_VIEW.parse(LEDGER_VIEW.data(3, "t", "-"))).toEqual({ page: 3, currency: "t", typeRef: null });
    expect(LEDGER_VIEW.parse(LEDGER_VIEW.data(1, "u", "AbCdEfGh_-"))).toEqual({
      page: 1,
      currency: "u",
      typeRef: "AbCdEfGh_-",
    });
    expect(RULE_VIEW.parse(RULE_VIEW.data({ ref: "AbCdEfGh_-", page: 2, topUp: true }))).toEqual({
      ref: "AbCdEfGh_-",
      page: 2,
      topUp: true,
    });
    expect(RULE_LIST_VIEW.parse(RULE_LIST_VIEW.data({ turn: -1, page: 4 }))).toEqual({ ref: null, page: 4, turn: -1 });
    expect(RULE_LIST_VIEW.parse(RULE_LIST_VIEW.data({ ref: "AbCdEfGh_-", page: 1 }))).toEqual({
      ref: "AbCdEfGh_-",
      page: 1,
      turn: 0,
    });
    expect(WATCH_VIEW.parse(WATCH_VIEW.data("AbCdEfGh_-"))).toBe("AbCdEfGh_-");
    expect(
      MENU_DATA.parse(MENU_DATA.data(MENU_IDS.rule, RULE_VIEW.data({ ref: "AbCdEfGh_-", page: 0 }), "h1")),
    ).toEqual({ menu: MENU_IDS.rule, payload: "AbCdEfGh_-.0" });
    for (const crafted of [
      "",
      "x.ru",
      "l.RU",
      "l.ru.",
      "1.x.-",
      "AbCdEfGh_.1",
      "AbCdEfGh_-.12345",
      "q.1",
      "AbCdEfGh_-x",
      "AbCdEf<h_-",
      "a".repeat(200),
    ]) {
      expect(
        [SETTINGS_TAP, LEDGER_VIEW, RULE_VIEW, RULE_LIST_VIEW, WATCH_VIEW].map((kind) => kind.parse(crafted)),
      ).toEqual([null, null, null, null, null]);
    }
    expect(LEDGER_VIEW.parse("0.t.-")).toEqual({ page: 1, currency: "t", typeRef: null });
    expect(SETTINGS_TAP.parse("x.ru")).toBeNull();
    expect(RULE_VIEW.parse("AbCdEfGh_-.12345")).toBeNull();
    expect(WATCH_VIEW.parse("AbCdEfGh_")).toBeNull();
  });

  it("has no hand-written pattern over callback or menu data outside the registry", () => {
    const outside = tsFiles(SRC)
      .filter(
        (file) =>
          !file.endsWith(join("chat", "callback-data.ts")) &&
          !file.includes(`${join("src", "sandbox")}`) &&
          !file.includes(join("src", "telegram-fake")),
      )
      .flatMap((file) => {
        const text = readFileSync(file, "utf8");
        const found: string[] = [];
        // A short reference's shape, or a menu id, inside a regular expression.
        for (const match of text.matchAll(
          /(\/\^[^\n/]*\[A-Za-z0-9_-\]\{10\}[^\n]*\/)|new RegExp\(`[^`]*MENU_IDS[^`]*`\)|\/\^\(\[[a-z]{2,}\]\)\\\./g,
        ))
          found.push(`${relative(SRC, file)}: ${match[0].slice(0, 60)}`);
        return found;
      });
    expect(outside).toEqual([]);
  });
});
