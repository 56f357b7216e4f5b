import type { LocaleBundles } from "#src/chat/i18n";
import { plain } from "./failures";

/** The words the page itself shows (the data comes worded by the server); each is `miniapp-<name>` in locales/*.ftl. */
const PAGE_TEXTS = [
  "title",
  "loading",
  "balances",
  "unread",
  "unread-none",
  "rules",
  "rules-empty",
  "paused-by-user",
  "paused-by-system",
  "spent",
  "pause",
  "resume",
  "autobuys",
  "autobuys-empty",
  "orders",
  "orders-empty",
  "buy",
  "buy-again",
  "spending",
  "days-7",
  "days-30",
  "connect-first",
  "key-broken",
  "unauthorized",
  "no-init-data",
  "retry",
  "failed",
  "slow-down",
] as const;

/** Every page text in every language, as plain text: the page picks the language before it may read any data. */
export function pageTexts(
  i18n: Pick<LocaleBundles, "t">,
  languages: readonly string[],
): Record<string, Record<string, string>> {
  return Object.fromEntries(
    languages.map((language) => [
      language,
      Object.fromEntries(PAGE_TEXTS.map((name) => [name, plain(i18n.t(language, `miniapp-${name}`))])),
    ]),
  );
}

/**
 * The page: its texts as a JSON data block (never run as a script), the style and the bundled
 * script, named with its version so a phone keeps it until the next build (see routes.ts).
 */
export function pageHtml(texts: Record<string, Record<string, string>>, scriptVersion = ""): string {
  // "<" escaped, so no text can close the data block.
  const data = JSON.stringify(texts).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>Dashboard</title>
<link rel="stylesheet" href="/app/app.css">
</head>
<body>
<main id="app"></main>
<script id="texts" type="application/json">${data}</script>
<script src="/app/app.js${scriptVersion ? `?v=${scriptVersion}` : ""}"></script>
</body>
</html>
`;
}
