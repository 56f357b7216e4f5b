/** One part of a multipart/form-data body. */
export interface MultipartPart {
  name: string;
  filename?: string;
  bytes: Uint8Array;
}

const decoder = new TextDecoder();

/**
 * A small multipart/form-data parser. Node's own `Request.formData()` refuses grammY's bodies
 * (grammY writes `content-disposition:` without a space and an unquoted filename), which
 * Telegram accepts, so the fake must too.
 */
export function parseMultipart(body: Uint8Array, contentType: string): MultipartPart[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return [];
  const delimiter = new TextEncoder().encode(`--${boundary[1] ?? boundary[2]}`);
  const parts: MultipartPart[] = [];
  let position = indexOf(body, delimiter, 0);
  while (position >= 0) {
    const start = position + delimiter.length;
    if (body[start] === 45 && body[start + 1] === 45) break; // "--": the closing delimiter
    const next = indexOf(body, delimiter, start);
    if (next < 0) break;
    const part = parsePart(body.subarray(skipLineBreak(body, start), trimLineBreak(body, next)));
    if (part) parts.push(part);
    position = next;
  }
  return parts;
}

function parsePart(raw: Uint8Array): MultipartPart | null {
  const headerEnd = indexOf(raw, new Uint8Array([13, 10, 13, 10]), 0);
  if (headerEnd < 0) return null;
  const headers = decoder.decode(raw.subarray(0, headerEnd));
  const disposition = /content-disposition\s*:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
  const name = /(?:^|;)\s*name=(?:"([^"]*)"|([^;\s]*))/i.exec(disposition);
  if (!name) return null;
  const filename = /filename=(?:"([^"]*)"|([^;\s]*))/i.exec(disposition);
  const part: MultipartPart = { name: name[1] ?? name[2] ?? "", bytes: raw.slice(headerEnd + 4) };
  if (filename) part.filename = filename[1] ?? filename[2] ?? "";
  return part;
}

function skipLineBreak(body: Uint8Array, at: number): number {
  return body[at] === 13 && body[at + 1] === 10 ? at + 2 : at;
}

function trimLineBreak(body: Uint8Array, end: number): number {
  return body[end - 2] === 13 && body[end - 1] === 10 ? end - 2 : end;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  outer: for (let i = haystack.indexOf(first!, from); i >= 0; i = haystack.indexOf(first!, i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    for (let j = 1; j < needle.length; j += 1) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
