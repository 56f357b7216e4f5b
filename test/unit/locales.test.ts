import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FluentBundle, FluentResource } from "@fluent/bundle";
import { describe, expect, it } from "vitest";
import { parseTelegramHtml } from "#src/telegram-fake/index";
import { latinLeaks } from "../kit/latin-leaks";

const LOCALES_DIR = fileURLToPath(new URL("../../locales/", import.meta.url));
/** Message ids start lines that are not indented (continuation lines are). */
const MESSAGE_ID = /^([a-z][a-z0-9-]*)\s*=/;

interface Locale {
  name: string;
  source: string;
  /** Ids found by a plain line scan, in file order (duplicates kept). */
  scannedIds: string[];
  resource: FluentResource;
  bundle: FluentBundle;
  addErrors: Error[];
}

function loadLocale(name: string): Locale {
  const source = readFileSync(join(LOCALES_DIR, `${name}.ftl`), "utf8");
  const scannedIds = source
    .split(/\r?\n/)
    .map((line) => MESSAGE_ID.exec(line)?.[1])
    .filter((id): id is string => id !== undefined);
  const resource = new FluentResource(source);
  const bundle = new FluentBundle(name, { useIsolating: false });
  const addErrors = bundle.addResource(resource);
  return { name, source, scannedIds, resource, bundle, addErrors };
}

const localeNames = readdirSync(LOCALES_DIR)
  .filter((file) => file.endsWith(".ftl"))
  .map((file) => file.slice(0, -".ftl".length))
  .sort();
const locales = localeNames.map(loadLocale);

/** Message ids as Fluent parsed them (junk, i.e. a syntax error, is silently dropped by FluentResource). */
function parsedIds(locale: Locale): string[] {
  return locale.resource.body.filter((entry) => !entry.id.startsWith("-")).map((entry) => entry.id);
}

/** Every `{ $variable }` a message uses, anywhere in its value or attributes. */
function variablesOf(locale: Locale, id: string): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
    } else if (node !== null && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (record.type === "var" && typeof record.name === "string") found.add(record.name);
      Object.values(record).forEach(walk);
    }
  };
  const message = locale.bundle.getMessage(id);
  walk(message?.value);
  walk(message?.attributes);
  return [...found].sort();
}

/** Each message of each locale, formatted with every variable it uses set to a harmless value. */
function formatAll(locale: Locale): { id: string; text: string; errors: Error[] }[] {
  return parsedIds(locale).map((id) => {
    const message = locale.bundle.getMessage(id)!;
    const args = Object.fromEntries(variablesOf(locale, id).map((name, index) => [name, `X${index + 1}`]));
    const errors: Error[] = [];
    const text = message.value === null ? "" : locale.bundle.formatPattern(message.value, args, errors);
    return { id, text, errors };
  });
}

describe("locales/*.ftl", () => {
  it("ships English, Russian and Chinese", () => {
    expect(localeNames).toEqual(expect.arrayContaining(["en", "ru", "zh"]));
  });

  it("has no Fluent syntax errors", () => {
    const problems: string[] = [];
    for (const locale of locales) {
      for (const error of locale.addErrors) problems.push(`${locale.name}: ${error.message}`);
      const parsed = parsedIds(locale);
      const dropped = locale.scannedIds.filter((id) => !parsed.includes(id));
      if (dropped.length > 0) problems.push(`${locale.name}: unparsable message(s): ${dropped.join(", ")}`);
      const duplicates = locale.scannedIds.filter((id, index) => locale.scannedIds.indexOf(id) !== index);
      if (duplicates.length > 0) problems.push(`${locale.name}: duplicate id(s): ${duplicates.join(", ")}`);
      const stray = locale.source
        .split(/\r?\n/)
        .map((line, index) => ({ line, number: index + 1 }))
        .filter(
          ({ line }) => line.trim() !== "" && !line.startsWith("#") && !/^\s/.test(line) && !MESSAGE_ID.test(line),
        );
      for (const { line, number } of stray)
        problems.push(`${locale.name}.ftl:${number}: not a message, comment or indented continuation: ${line}`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("has every key in every locale", () => {
    const allIds = new Set(locales.flatMap(parsedIds));
    const problems: string[] = [];
    for (const locale of locales) {
      const own = new Set(parsedIds(locale));
      const missing = [...allIds].filter((id) => !own.has(id));
      if (missing.length > 0)
        problems.push(`${locale.name}.ftl is missing ${missing.length} key(s): ${missing.join(", ")}`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("keeps the keys in the same order as en.ftl", () => {
    const english = locales.find((locale) => locale.name === "en")!;
    const shared = (locale: Locale) =>
      parsedIds(locale).filter((id) => locales.every((other) => other.bundle.hasMessage(id)));
    for (const locale of locales) expect(shared(locale), `${locale.name}.ftl key order`).toEqual(shared(english));
  });

  it("uses the same { $variables } in each message in every locale", () => {
    const english = locales.find((locale) => locale.name === "en")!;
    const problems: string[] = [];
    for (const locale of locales) {
      if (locale === english) continue;
      for (const id of parsedIds(locale)) {
        if (!english.bundle.hasMessage(id)) continue;
        const expected = variablesOf(english, id);
        const actual = variablesOf(locale, id);
        if (expected.join(",") !== actual.join(",")) {
          const list = (names: string[]) => names.map((name) => `{ $${name} }`).join(", ") || "no variables";
          problems.push(`${locale.name}.ftl ${id}: uses ${list(actual)} but en.ftl uses ${list(expected)}`);
        }
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("addresses the reader one way in each language: zh 您 (never 你), ru «вы» (never «ты» or «Привет»)", () => {
    const informal: Record<string, RegExp> = {
      zh: /你/,
      ru: /(?<![а-яё])(?:ты|тебя|тебе|тобой|твой|твоя|твоё|твои|твоего|твоей|твоих|привет)(?![а-яё])/i,
    };
    const problems: string[] = [];
    for (const locale of locales) {
      const pattern = informal[locale.name];
      if (!pattern) continue;
      for (const { id, text } of formatAll(locale))
        if (pattern.test(text)) problems.push(`${locale.name}.ftl ${id}: ${text}`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("writes no English in Russian and Chinese: no Latin word outside the allow-list (brands, units, technical names)", () => {
    const problems: string[] = [];
    for (const locale of locales.filter((candidate) => candidate.name === "ru" || candidate.name === "zh")) {
      // Every variable a word of the locale's own script, so only the message's own words can leak.
      const placeholder = locale.name === "ru" ? "Ж" : "甲";
      for (const id of parsedIds(locale)) {
        const message = locale.bundle.getMessage(id)!;
        if (message.value === null) continue;
        const args = Object.fromEntries(variablesOf(locale, id).map((name) => [name, placeholder]));
        const leaks = latinLeaks(locale.bundle.formatPattern(message.value, args, []));
        if (leaks.length > 0) problems.push(`${locale.name}.ftl ${id}: ${leaks.join(", ")}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("formats every message into HTML that Telegram accepts", () => {
    const problems: string[] = [];
    for (const locale of locales) {
      for (const { id, text, errors } of formatAll(locale)) {
        for (const error of errors) problems.push(`${locale.name}.ftl ${id}: ${error.message}`);
        if (text.trim() === "") problems.push(`${locale.name}.ftl ${id}: empty message`);
        const parsed = parseTelegramHtml(text);
        if (!parsed.ok) problems.push(`${locale.name}.ftl ${id}: ${parsed.description}\n    ${text}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
