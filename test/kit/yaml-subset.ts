/**
 * Reads the YAML the project ships (compose.yaml, deploy/prometheus/*.yml) for tests: block
 * mappings and sequences, flow `[…]` and `{…}` of scalars, literal blocks (`|`), anchors and
 * aliases, comments. Every scalar stays a string (no type guessing). Anything else throws: a
 * construct this does not know fails the test that reads it instead of being misread.
 */
export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  raw: string;
}

export function parseYamlSubset(source: string): YamlValue {
  const raw = source.split(/\r?\n/);
  const anchors = new Map<string, YamlValue>();
  let at = 0;

  const lineAt = (index: number): Line | null => {
    const text = raw[index]!;
    const stripped = stripComment(text).trimEnd();
    if (stripped.trim() === "" || stripped.trim() === "---") return null;
    return { indent: stripped.length - stripped.trimStart().length, text: stripped.trim(), raw: text };
  };
  /** The next line with content, from `at`, without moving. */
  const peek = (): Line | null => {
    for (let index = at; index < raw.length; index++) {
      const line = lineAt(index);
      if (line) {
        at = index;
        return line;
      }
    }
    at = raw.length;
    return null;
  };

  const literalBlock = (parentIndent: number): string => {
    const lines: string[] = [];
    let blockIndent: number | null = null;
    while (at < raw.length) {
      const text = raw[at]!;
      if (text.trim() === "") {
        lines.push("");
        at++;
        continue;
      }
      const indent = text.length - text.trimStart().length;
      if (indent <= parentIndent) break;
      blockIndent ??= indent;
      lines.push(text.slice(blockIndent));
      at++;
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return `${lines.join("\n")}\n`;
  };

  const valueAfterKey = (rest: string, indent: number): YamlValue => {
    let text = rest.trim();
    let anchor: string | null = null;
    const anchored = /^&(\S+)\s*(.*)$/.exec(text);
    if (anchored) {
      anchor = anchored[1]!;
      text = anchored[2]!;
    }
    let value: YamlValue;
    if (text === "") {
      const next = peek();
      if (next && (next.indent > indent || (next.indent === indent && next.text.startsWith("- "))))
        value = block(next.indent);
      else value = null;
    } else if (/^[|>][-+]?$/.test(text)) {
      value = literalBlock(indent);
    } else {
      value = inlineValue(text, anchors);
    }
    if (anchor) anchors.set(anchor, value);
    return value;
  };

  const mapping = (indent: number): { [key: string]: YamlValue } => {
    const result: { [key: string]: YamlValue } = {};
    for (
      let line = peek();
      line && line.indent === indent && !line.text.startsWith("- ") && line.text !== "-";
      line = peek()
    ) {
      const split = splitKey(line.text);
      if (!split) throw new Error(`yaml-subset: expected "key: value" at line ${at + 1}: ${line.raw}`);
      at++;
      const value = valueAfterKey(split.rest, indent);
      if (split.key === "<<" && value && typeof value === "object" && !Array.isArray(value))
        Object.assign(result, value);
      else result[split.key] = value;
    }
    return result;
  };

  const sequence = (indent: number): YamlValue[] => {
    const result: YamlValue[] = [];
    for (
      let line = peek();
      line && line.indent === indent && (line.text.startsWith("- ") || line.text === "-");
      line = peek()
    ) {
      const item = line.text.slice(1).trimStart();
      const itemIndent = indent + (line.text.length - item.length);
      if (item === "") {
        at++;
        result.push(valueAfterKey("", indent));
      } else if (splitKey(item) && !/^["'[{]/.test(item)) {
        // "- key: value" opens a mapping whose further keys sit under "key".
        raw[at] = " ".repeat(itemIndent) + item;
        result.push(mapping(itemIndent));
      } else {
        at++;
        result.push(inlineValue(item, anchors));
      }
    }
    return result;
  };

  const block = (indent: number): YamlValue => {
    const line = peek();
    if (!line) return null;
    return line.text.startsWith("- ") || line.text === "-" ? sequence(indent) : mapping(indent);
  };

  const first = peek();
  if (!first) return null;
  const result = block(first.indent);
  if (peek()) throw new Error(`yaml-subset: could not read line ${at + 1}: ${raw[at]}`);
  return result;
}

/** The line without a comment (a # at the start or after a space, outside quotes). */
function stripComment(text: string): string {
  let quote: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === "\\" && quote === '"') index++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === "#" && (index === 0 || /\s/.test(text[index - 1]!))) {
      return text.slice(0, index);
    }
  }
  return text;
}

/** "key: rest" or "key:" (a plain or quoted key); null when the text is not a mapping entry. */
function splitKey(text: string): { key: string; rest: string } | null {
  const quoted = /^(["'])(.*?)\1\s*:(?:\s+(.*)|$)/.exec(text);
  if (quoted) return { key: quoted[2]!, rest: quoted[3] ?? "" };
  const plain = /^([^\s"'{[\]#,][^:]*?)\s*:(?:\s+(.*)|$)/.exec(text);
  if (plain) return { key: plain[1]!, rest: plain[2] ?? "" };
  return null;
}

function inlineValue(text: string, anchors: Map<string, YamlValue>): YamlValue {
  if (text.startsWith("*")) {
    const name = text.slice(1).trim();
    if (!anchors.has(name)) throw new Error(`yaml-subset: unknown alias *${name}`);
    return anchors.get(name)!;
  }
  if (text.startsWith("[")) return flowItems(text, "[", "]").map((item) => scalar(item));
  if (text.startsWith("{")) {
    const result: { [key: string]: YamlValue } = {};
    for (const item of flowItems(text, "{", "}")) {
      const split = splitKey(item);
      if (!split) throw new Error(`yaml-subset: expected "key: value" in ${text}`);
      result[split.key] = scalar(split.rest);
    }
    return result;
  }
  return scalar(text);
}

/** The comma-separated items of a flow collection of scalars, commas inside quotes kept. */
function flowItems(text: string, open: string, close: string): string[] {
  if (!text.endsWith(close)) throw new Error(`yaml-subset: a flow collection must end on its line: ${text}`);
  const body = text.slice(open.length, -close.length);
  const items: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (quote) {
      if (char === "\\" && quote === '"') {
        current += char + (body[index + 1] ?? "");
        index++;
        continue;
      }
      if (char === quote) quote = null;
      current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current += char;
    } else if (char === "[" || char === "{") {
      throw new Error(`yaml-subset: nested flow collections are not read: ${text}`);
    } else if (char === ",") {
      items.push(current.trim());
      current = "";
    } else {
      current += char;
    }
  }
  if (current.trim() !== "") items.push(current.trim());
  return items;
}

function scalar(text: string): string | null {
  const value = text.trim();
  if (value === "" || value === "~" || value === "null") return null;
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) return JSON.parse(value) as string;
  if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}
