import type { MessageEntityLike } from "./types";

export type HtmlParseResult =
  { ok: true; text: string; entities: MessageEntityLike[] } | { ok: false; description: string };

interface OpenTag {
  name: string;
  /** UTF-16 offset in the output text where the tag's content starts. */
  start: number;
  entity: Omit<MessageEntityLike, "offset" | "length"> | null;
}

const SIMPLE_TAGS: Record<string, string> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  code: "code",
  pre: "pre",
};
const ATTRIBUTE_TAGS = new Set(["a", "span", "blockquote", "tg-emoji"]);
const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };
const PREFIX = "Bad Request: can't parse entities: ";

class HtmlError extends Error {}

/**
 * Parses text the way Telegram does for parse_mode HTML (its TDLib parser's rules and error
 * wording), so a formatting mistake fails a test instead of a user's message. On success `text`
 * is what the user sees and `description` on failure is Telegram's full 400 description.
 */
export function parseTelegramHtml(html: string): HtmlParseResult {
  try {
    return { ok: true, ...parse(html) };
  } catch (error) {
    if (error instanceof HtmlError) return { ok: false, description: PREFIX + error.message };
    throw error;
  }
}

function parse(html: string): { text: string; entities: MessageEntityLike[] } {
  const byteOffset = (position: number) => new TextEncoder().encode(html.slice(0, position)).length;
  const stack: OpenTag[] = [];
  const entities: MessageEntityLike[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const char = html[i]!;
    if (char === "&") {
      const decoded = decodeEntity(html, i);
      if (!decoded) throw new HtmlError(`Unescaped "&" at byte offset ${byteOffset(i)}: write it as &amp;`);
      text += decoded.value;
      i = decoded.end;
    } else if (char !== "<") {
      text += char;
      i += 1;
    } else if (html[i + 1] === "/") {
      i = closeTag(html, i, stack, text, entities, byteOffset);
    } else {
      const opened = openTag(html, i, byteOffset);
      stack.push({ ...opened.tag, start: text.length });
      i = opened.end;
    }
  }
  const unclosed = stack.pop();
  if (unclosed) throw new HtmlError(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text, entities };
}

function decodeEntity(html: string, at: number): { value: string; end: number } | null {
  const match = /^&(?:([a-zA-Z]+)|#(\d+)|#[xX]([0-9a-fA-F]+));/.exec(html.slice(at, at + 12));
  if (!match) return null;
  const end = at + match[0].length;
  if (match[1] !== undefined) {
    const value = NAMED_ENTITIES[match[1].toLowerCase()];
    return value === undefined ? null : { value, end };
  }
  const codePoint = match[2] !== undefined ? Number(match[2]) : parseInt(match[3]!, 16);
  const valid = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
  return valid ? { value: String.fromCodePoint(codePoint), end } : null;
}

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\n" || char === "\t" || char === "\r";
}

function openTag(
  html: string,
  begin: number,
  byteOffset: (position: number) => number,
): { tag: Omit<OpenTag, "start">; end: number } {
  let i = begin + 1;
  while (i < html.length && !isSpace(html[i]) && html[i] !== ">") i += 1;
  if (i >= html.length) throw new HtmlError(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
  const name = html.slice(begin + 1, i).toLowerCase();
  if (!(name in SIMPLE_TAGS) && !ATTRIBUTE_TAGS.has(name)) {
    throw new HtmlError(`Unsupported start tag "${name}" at byte offset ${byteOffset(begin)}`);
  }
  const attributes = new Map<string, string>();
  while (html[i] !== ">") {
    while (isSpace(html[i])) i += 1;
    if (i >= html.length) throw new HtmlError(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
    if (html[i] === ">") break;
    const nameStart = i;
    while (i < html.length && !isSpace(html[i]) && html[i] !== "=" && html[i] !== ">") i += 1;
    const attribute = html.slice(nameStart, i).toLowerCase();
    if (!attribute)
      throw new HtmlError(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(begin)}`);
    while (isSpace(html[i])) i += 1;
    if (html[i] !== "=") {
      if (name !== "blockquote" || attribute !== "expandable") {
        throw new HtmlError(
          `Expected equal sign in declaration of an attribute of the tag "${name}" at byte offset ${byteOffset(begin)}`,
        );
      }
      attributes.set(attribute, "");
      continue;
    }
    i += 1;
    while (isSpace(html[i])) i += 1;
    const value = readAttributeValue(html, i);
    if (!value) throw new HtmlError(`Unclosed start tag at byte offset ${byteOffset(begin)}`);
    attributes.set(attribute, value.value);
    i = value.end;
  }
  return { tag: { name, entity: entityFor(name, attributes, byteOffset(begin)) }, end: i + 1 };
}

function readAttributeValue(html: string, at: number): { value: string; end: number } | null {
  const quote = html[at];
  if (quote !== '"' && quote !== "'") {
    const match = /^[a-zA-Z0-9.\-_:/?#=&%+]*/.exec(html.slice(at))!;
    return at + match[0].length < html.length ? { value: match[0], end: at + match[0].length } : null;
  }
  let value = "";
  let i = at + 1;
  while (i < html.length && html[i] !== quote) {
    const decoded = html[i] === "&" ? decodeEntity(html, i) : null;
    value += decoded ? decoded.value : html[i];
    i = decoded ? decoded.end : i + 1;
  }
  return i < html.length ? { value, end: i + 1 } : null;
}

function entityFor(name: string, attributes: Map<string, string>, offset: number): OpenTag["entity"] {
  switch (name) {
    case "a": {
      const url = attributes.get("href");
      return url ? { type: "text_link", url } : null;
    }
    case "span":
      if (attributes.get("class") !== "tg-spoiler") {
        throw new HtmlError(`Tag "span" must have class "tg-spoiler" at byte offset ${offset}`);
      }
      return { type: "spoiler" };
    case "blockquote":
      return { type: attributes.has("expandable") ? "expandable_blockquote" : "blockquote" };
    case "tg-emoji": {
      const id = attributes.get("emoji-id");
      if (!id || !/^\d+$/.test(id)) throw new HtmlError("Invalid custom emoji identifier specified");
      return { type: "custom_emoji", custom_emoji_id: id };
    }
    case "code": {
      const language = /^language-(.+)$/.exec(attributes.get("class") ?? "")?.[1];
      return language ? { type: "code", language } : { type: "code" };
    }
    default:
      return { type: SIMPLE_TAGS[name]! };
  }
}

function closeTag(
  html: string,
  begin: number,
  stack: OpenTag[],
  text: string,
  entities: MessageEntityLike[],
  byteOffset: (position: number) => number,
): number {
  const open = stack.pop();
  if (!open) throw new HtmlError(`Unexpected end tag at byte offset ${byteOffset(begin)}`);
  let i = begin + 2;
  while (i < html.length && !isSpace(html[i]) && html[i] !== ">") i += 1;
  const name = html.slice(begin + 2, i).toLowerCase();
  while (isSpace(html[i])) i += 1;
  if (html[i] !== ">") throw new HtmlError(`Unclosed end tag at byte offset ${byteOffset(begin)}`);
  if (name && name !== open.name) {
    throw new HtmlError(
      `Unmatched end tag at byte offset ${byteOffset(begin)}, expected "</${open.name}>", found "</${name}>"`,
    );
  }
  const length = text.length - open.start;
  if (open.entity && length > 0) addEntity(entities, { ...open.entity, offset: open.start, length });
  return i + 1;
}

/** `<pre><code class="language-x">` is one pre entity with a language, as Telegram reports it. */
function addEntity(entities: MessageEntityLike[], entity: MessageEntityLike): void {
  const inner = entities.find((e) => e.type === "code" && e.offset === entity.offset && e.length === entity.length);
  if (entity.type === "pre" && inner) {
    entities.splice(entities.indexOf(inner), 1);
    entities.push(inner.language ? { ...entity, language: inner.language } : entity);
    return;
  }
  entities.push(entity);
}
