import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FluentBundle, FluentResource, type FluentVariable } from "@fluent/bundle";
import { negotiateLanguages } from "@fluent/langneg";
import { escapeHtml } from "./html";

export const LANGUAGES = ["en", "ru", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];

const DEFAULT_LANGUAGE: Language = "en";

/** Telegram's language codes seen so far and the shipped language each negotiated to. */
const negotiated = new Map<string, Language>();

/**
 * Maps Telegram's language_code (e.g. "ru", "zh-hans", "pt-br") to a shipped language through
 * @fluent/langneg (English when none matches). A code is negotiated once; the map stays bounded
 * whatever codes arrive.
 */
export function pickLanguage(code: string | null | undefined): Language {
  const tag = (code ?? "").toLowerCase();
  if (tag === "") return DEFAULT_LANGUAGE;
  const known = negotiated.get(tag);
  if (known) return known;
  const [best] = negotiateLanguages([tag], LANGUAGES, { defaultLocale: DEFAULT_LANGUAGE, strategy: "lookup" });
  const language = (LANGUAGES as readonly string[]).includes(best ?? "") ? (best as Language) : DEFAULT_LANGUAGE;
  if (negotiated.size < 256) negotiated.set(tag, language);
  return language;
}

/**
 * The Fluent files of `locales/` (one `<language>.ftl` each), loaded once at start into one
 * @fluent/bundle `FluentBundle` per shipped language, variables inserted without Unicode isolation
 * marks. A message missing from a language falls back on English; a key missing everywhere reads
 * `{key}`. The language is chosen before (the account middleware's pick), so a translation is a
 * map lookup and a format, with no negotiation per message.
 */
export class LocaleBundles {
  /** Per shipped language: its bundle, then English's. */
  private readonly chains: ReadonlyMap<string, readonly FluentBundle[]>;

  constructor(sources: Readonly<Record<Language, string>>) {
    const english = bundleOf(DEFAULT_LANGUAGE, sources[DEFAULT_LANGUAGE]);
    this.chains = new Map(
      LANGUAGES.map((language) => [
        language,
        language === DEFAULT_LANGUAGE ? [english] : [bundleOf(language, sources[language]), english],
      ]),
    );
  }

  /** Reads `<directory>/<language>.ftl` for every shipped language. */
  static load(directory: string): LocaleBundles {
    const read = (language: Language) => readFileSync(join(directory, `${language}.ftl`), "utf8");
    return new LocaleBundles({ en: read("en"), ru: read("ru"), zh: read("zh") });
  }

  /** The message `key` (or `key.attribute`) in `locale`'s language, its variables filled in. */
  t(locale: string, key: string, vars?: Record<string, string | number>): string {
    // "key.attribute" reads an attribute; a plain key (every one the bot uses) splits nothing.
    const dot = key.indexOf(".");
    const id = dot < 0 ? key : key.slice(0, dot);
    const attribute = dot < 0 ? undefined : key.slice(dot + 1);
    for (const bundle of this.chain(locale)) {
      const message = bundle.getMessage(id);
      const pattern = attribute === undefined ? message?.value : message?.attributes[attribute];
      if (pattern) return bundle.formatPattern(pattern, vars as Record<string, FluentVariable> | undefined);
    }
    return `{${key}}`;
  }

  private chain(locale: string): readonly FluentBundle[] {
    return this.chains.get(locale) ?? this.chains.get(pickLanguage(locale))!;
  }
}

function bundleOf(language: Language, source: string): FluentBundle {
  const bundle = new FluentBundle(language, { useIsolating: false });
  const errors = bundle.addResource(new FluentResource(source));
  if (errors.length > 0) throw new Error(`locales/${language}.ftl: ${errors.map((error) => error.message).join("; ")}`);
  return bundle;
}

/** Loads the Fluent files of `directory` (see LocaleBundles). */
export function createI18n(directory: string): LocaleBundles {
  return LocaleBundles.load(directory);
}

export type Vars = Record<string, string | number>;

/**
 * Every string variable is HTML-escaped. A whole number stays a number, so a message can choose its
 * words by the language's plural rules (`{ $count -> [one] order *[other] orders }`); amounts and
 * other shown numbers are formatted by the caller and passed as strings (no float formatting here).
 */
export function escapeVars(vars: Vars | undefined): Record<string, string | number> | undefined {
  if (!vars) return undefined;
  return Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [
      name,
      typeof value === "number" && Number.isSafeInteger(value) ? value : escapeHtml(String(value)),
    ]),
  );
}

/** Variables that are already safe HTML (built by the formatters), passed through as they are. */
export type Translate = (key: string, vars?: Vars, html?: Record<string, string>) => string;

export function translatorFor(
  i18n: { t(locale: string, key: string, vars?: Record<string, string | number>): string },
  locale: string,
): Translate {
  return (key, vars, html) => i18n.t(locale, key, { ...escapeVars(vars), ...html });
}
