import { parseMultipart } from "./multipart";

/** A file the bot uploaded in a multipart body. */
export class UploadedFile {
  constructor(
    readonly bytes: Uint8Array,
    readonly filename?: string,
  ) {}
}

export type Params = Record<string, unknown>;

/**
 * Reads a Bot API request the ways Telegram accepts one: query string, JSON,
 * x-www-form-urlencoded or multipart/form-data. Multipart files referenced as `attach://<name>`
 * (grammY's way) or sent under the parameter's own name become {@link UploadedFile}s.
 */
export async function readRequestParams(request: Request): Promise<Params> {
  const params: Params = Object.fromEntries(new URL(request.url).searchParams);
  if (request.method !== "POST") return params;
  const contentType = request.headers.get("content-type") ?? "";
  if (/^application\/json/i.test(contentType)) {
    const body: unknown = await request.json().catch(() => null);
    if (body && typeof body === "object" && !Array.isArray(body)) Object.assign(params, body);
  } else if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(await request.text())));
  } else if (/^multipart\/form-data/i.test(contentType)) {
    const parts = parseMultipart(new Uint8Array(await request.arrayBuffer()), contentType);
    const files = new Map<string, UploadedFile>();
    for (const part of parts) {
      if (part.filename === undefined) params[part.name] = new TextDecoder().decode(part.bytes);
      else files.set(part.name, new UploadedFile(part.bytes, part.filename));
    }
    for (const [key, value] of Object.entries(params)) {
      const attached =
        typeof value === "string" && value.startsWith("attach://") ? files.get(value.slice(9)) : undefined;
      if (attached) params[key] = attached;
    }
    for (const [name, file] of files) if (!(name in params)) params[name] = file;
  }
  return params;
}

/** Params as recorded in {@link ApiCall}: files become `{ bytes: n }`. */
export function paramsForRecord(params: Params): Params {
  return Object.fromEntries(
    Object.entries(params).map(([key, value]) => [
      key,
      value instanceof UploadedFile ? { bytes: value.bytes.length } : value,
    ]),
  );
}
