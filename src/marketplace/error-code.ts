/**
 * Finding the machine-readable error code in a marketplace error body. The spec names the codes
 * but not where they travel, so a code is looked for in `code`, `type`, `title` and `detail`,
 * as a bare string, at the end of a URI (".../errors/wallet.insufficient_balance") or inside a
 * sentence.
 */

/** Codes the spec names; they decide the error kind whatever the HTTP status says. */
export const KNOWN_ERROR_CODES = [
  "wallet.insufficient_balance",
  "api_key.insufficient_scope",
  "api_key.spend_limit_exceeded",
] as const;
export type KnownErrorCode = (typeof KNOWN_ERROR_CODES)[number];

/** The body fields searched, in order of trust. */
export const ERROR_CODE_FIELDS = ["code", "type", "title", "detail"] as const;

const SEGMENT = "[a-z][a-z0-9]*(?:_[a-z0-9]+)*";
/** A whole value that is a dotted code: "wallet.insufficient_balance", "order.not_found". */
const BARE_CODE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})+$`, "i");
/**
 * A dotted code inside prose. It must contain an underscore so that host names ("example.com")
 * and abbreviations ("e.g.") in a sentence are not mistaken for codes.
 */
const CODE_IN_TEXT = new RegExp(`(?<![\\w./-])${SEGMENT}(?:\\.${SEGMENT})+(?![\\w/-]|\\.\\w)`, "gi");

function isKnown(code: string): code is KnownErrorCode {
  return (KNOWN_ERROR_CODES as readonly string[]).includes(code);
}

/** The candidate codes in one field value, most specific first. */
function codesIn(value: string, field: string): string[] {
  const text = value.trim();
  if (!text) return [];
  if (BARE_CODE.test(text)) return [text.toLowerCase()];
  // The `code` field is a code by definition, dotted or not ("insufficient_balance").
  if (field === "code" && /^[\w.-]+$/.test(text)) return [text.toLowerCase()];
  const found: string[] = [];
  // A URI (or URI-like path) carries the code as its last segment, after "/", "#" or ":".
  if (/^[a-z][a-z0-9+.-]*:|^\//i.test(text) && !/\s/.test(text)) {
    const tail =
      text
        .split("?")[0]!
        .replace(/[/#]+$/, "")
        .split(/[/#:]/)
        .pop() ?? "";
    if (BARE_CODE.test(tail)) found.push(tail.toLowerCase());
    return found;
  }
  for (const match of text.matchAll(CODE_IN_TEXT)) {
    const code = match[0].toLowerCase();
    if (isKnown(code) || code.includes("_")) found.push(code);
  }
  return found;
}

/**
 * The error code carried by an error body, or undefined. A known code anywhere wins over any
 * other code; otherwise the first code found, searching `code`, `type`, `title`, `detail` in
 * that order.
 */
export function extractErrorCode(
  body: Partial<Record<(typeof ERROR_CODE_FIELDS)[number], unknown>>,
): string | undefined {
  const candidates = ERROR_CODE_FIELDS.flatMap((field) => {
    const value = body[field];
    return typeof value === "string" ? codesIn(value, field) : [];
  });
  return candidates.find(isKnown) ?? candidates[0];
}
