import { I18n } from "@grammyjs/i18n";
import type { Context } from "grammy";
import { escapeHtml } from "./html";

export const LANGUAGES = ["en", "ru", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];

/** Maps Telegram's language_code (e.g. "ru", "zh-hans", "pt-br") to a shipped language, English otherwise. */
export function pickLanguage(code: string | null | undefined): Language {
  const base = (code ?? "").toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(base ?? "") ? (base as Language) : "en";
}

/**
 * Loads the Fluent files from `locales/`. Variables are inserted without Unicode isolation marks.
 * Messages are translated through `translatorFor` with the language the account middleware picked
 * (ctx.tr); the plugin's per-update middleware, which would negotiate a locale for a ctx.t nothing
 * reads, is not installed.
 */
export function createI18n<C extends Context>(directory: string): I18n<C> {
  const i18n = new I18n<C>({
    defaultLocale: "en",
    directory,
    useSession: false,
    fluentBundleOptions: { useIsolating: false },
  });
  rememberBundleMatches(i18n.fluent as unknown as BundleMatcher);
  return i18n;
}

interface BundleMatcher {
  matchBundles(locales: string[]): unknown;
}

/**
 * Fluent negotiates the language again on every translation (parsing locale tags, comparing them
 * with every bundle), which is most of the cost of a short message. The bundles are all loaded at
 * start and never change, so the answer for a locale is remembered.
 */
function rememberBundleMatches(fluent: BundleMatcher): void {
  const match = fluent.matchBundles.bind(fluent);
  const known = new Map<string, unknown>();
  fluent.matchBundles = (locales) => {
    const key = locales.join("\n");
    let bundles = known.get(key);
    if (bundles === undefined) {
      bundles = match(locales);
      // Locales come from our own short list, but the map stays bounded whatever is passed.
      if (known.size < 64) known.set(key, bundles);
    }
    return bundles;
  };
}

export type Vars = Record<string, string | number>;

/**
 * Every string variable is HTML-escaped. A whole number stays a number, so a message can choose its
 * words by the language's plural rules (`{ $count -> [one] order *[other] orders }`); amounts and
 * other shown numbers are formatted by the caller and passed as strings (no float formatting here).
 */
export function escapeVars(vars: Vars | undefined): Record<string, string | number> | undefined {
  if (!vars) return undefined;
  return Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, typeof value === "number" && Number.isSafeInteger(value) ? value : escapeHtml(String(value))]));
}

/** Variables that are already safe HTML (built by the formatters), passed through as they are. */
export type Translate = (key: string, vars?: Vars, html?: Record<string, string>) => string;

export function translatorFor(i18n: { t(locale: string, key: string, vars?: Record<string, string | number>): string }, locale: string): Translate {
  return (key, vars, html) => i18n.t(locale, key, { ...escapeVars(vars), ...html });
}
