import type { ApiCall } from "#src/telegram-fake/index";

/**
 * English left in a Russian or Chinese text: the Latin words a reader of that language would meet,
 * once what is meant to stay Latin is taken out. Taken out: the marketplace's own words (quoted in
 * a <blockquote>, under a line that says whose they are), <code> (ids, addresses, keys, command
 * examples), links, command names, TRON addresses, numbers with their units (65k, 1.5m, 15m, 1h,
 * 1d), IANA time zones, the command arguments the bot names in brackets ("(energy)") and the
 * words of ALLOWED (brands, currencies and technical names that every language writes in Latin).
 */
export const ALLOWED = new Set([
  "TRX",
  "TRON",
  "USDT",
  "USDT-TRC20",
  "TRC20",
  "API",
  "ID",
  "URL",
  "QR",
  "UTC",
  "HTML",
  "https",
  // The letter a TRON address starts with ("it starts with T").
  "T",
  "Telegram",
  "Webhook",
  "Webhooks",
  "webhook",
  // The unit of energy's price (1 TRX = 1,000,000 sun), as the marketplace names it.
  "sun",
  // The marketplace's test mode, named as the marketplace names it.
  "sandbox",
  // A wallet's seed phrase, as wallets name it.
  "seed",
  // The auto-buy alert's word from the product's surface, kept beside its translation in every
  // language so that a filter on the word finds the alert whatever the reader's language.
  "Auto-bought",
  // The names of the languages in the language choice, each in its own script.
  "English",
]);

/** What is meant to stay Latin, removed (see above); the rest is what a reader would see. */
export function withoutAllowedLatin(html: string): string {
  return (
    html
      .replace(/<blockquote[^>]*>[\s\S]*?<\/blockquote>/g, " ")
      .replace(/<(code|pre)>[\s\S]*?<\/\1>/g, " ")
      .replace(/<[^>]+>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&")
      // The playground's own buttons, in English on every page, named where the playground is explained.
      .replace(/Open the dashboard|Register my \/webhook URL/g, " ")
      .replace(/\b(?:https?:\/\/|t\.me\/)\S+/g, " ")
      .replace(/@[A-Za-z0-9_]+/g, " ")
      .replace(/(^|[^\w/.:])\/[a-z_]+\b/g, "$1 ")
      .replace(/\bT[1-9A-HJ-NP-Za-km-z]{33}\b/g, " ")
      .replace(/\bT[1-9A-HJ-NP-Za-km-z]{3}…[1-9A-HJ-NP-Za-km-z]{4}\b/g, " ")
      .replace(/\bT…/g, " ")
      .replace(/\d+(?:[.,]\d+)?\s?(?:[kmhd]|trx)\b/gi, " ")
      .replace(/\b[A-Z][a-z]+(?:\/[A-Za-z_+-]+)+/g, " ")
      .replace(/[(（](?:energy|bandwidth|purchase)[)）]/g, " ")
  );
}

/** The Latin words of `html` a reader would meet that ALLOWED does not list. */
export function latinLeaks(html: string): string[] {
  return [...withoutAllowedLatin(html).matchAll(/[A-Za-z][A-Za-z0-9_-]*/g)]
    .map((match) => match[0].replace(/-+$/, ""))
    .filter((word) => !ALLOWED.has(word));
}

/** A button row of a reply markup as the Bot API takes it (an object, or JSON in a multipart call). */
function buttonTexts(markup: unknown): string[] {
  const parsed = typeof markup === "string" ? (JSON.parse(markup) as unknown) : markup;
  if (!parsed || typeof parsed !== "object") return [];
  const rows = [
    ...((parsed as { inline_keyboard?: unknown[][] }).inline_keyboard ?? []),
    ...((parsed as { keyboard?: unknown[][] }).keyboard ?? []),
  ];
  return rows.flat().map((button) => (typeof button === "string" ? button : (button as { text: string }).text));
}

/**
 * Every text of a Bot API call a person reads: a message or an edit (text or caption), a toast,
 * its buttons, an inline answer's results, a command menu's descriptions, a menu button's text.
 * HTML texts stay HTML (parse_mode HTML), so a quote and a <code> can be told apart.
 */
export function textsOfCall(call: Pick<ApiCall, "method" | "params">): string[] {
  const params = call.params;
  const texts: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === "string" && value.trim() !== "") texts.push(value);
  };
  const escapePlain = (value: unknown) =>
    typeof value === "string" ? value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") : value;
  const html = params.parse_mode === "HTML";
  add(html ? params.text : escapePlain(params.text));
  add(html ? params.caption : escapePlain(params.caption));
  for (const label of buttonTexts(params.reply_markup)) add(escapePlain(label));
  if (call.method === "answerInlineQuery") {
    const results = (typeof params.results === "string" ? JSON.parse(params.results) : params.results) as Array<
      Record<string, unknown>
    >;
    for (const result of results ?? []) {
      add(escapePlain(result.title));
      add(escapePlain(result.description));
      add((result.input_message_content as { message_text?: string } | undefined)?.message_text);
      for (const label of buttonTexts(result.reply_markup)) add(escapePlain(label));
    }
    const button = params.button as { text?: string } | undefined;
    add(escapePlain(button?.text));
  }
  if (call.method === "setMyCommands") {
    const commands = (typeof params.commands === "string" ? JSON.parse(params.commands) : params.commands) as Array<{
      description: string;
    }>;
    for (const command of commands ?? []) add(escapePlain(command.description));
  }
  if (call.method === "setMyDescription") add(escapePlain(params.description));
  if (call.method === "setMyShortDescription") add(escapePlain(params.short_description));
  if (call.method === "setChatMenuButton")
    add(escapePlain((params.menu_button as { text?: string } | undefined)?.text));
  return texts;
}
