/**
 * Deep links `t.me/<bot>?start=<payload>` that open /buy, /quote or /watch filled in, such as
 * `buy_energy_65k_1h_T…` or `watch_energy_65k_1h_2p5`. Telegram passes on a start parameter of
 * 1–64 characters of A-Z a-z 0-9 _ -, so fields are joined by "_", a volume is written compactly
 * (65k, 2m) and a TRX amount writes its decimal point as "p".
 *
 * Parsing reads the payload's shape only: the values become the command's one-line arguments,
 * which the command checks with the same validators as typed ones (bounds, listed durations).
 */
import { checkTronAddress } from "./address";
import { parseTrxLimit } from "./trx-limit";
import { parseResource, parseVolume } from "./volume";
import { sunToTrx } from "#src/marketplace/money";

export const START_PARAMETER = /^[A-Za-z0-9_-]{1,64}$/;
export const START_PARAMETER_MAX = 64;

const FIELDS = {
  buy: ["resource", "volume", "duration", "address"],
  quote: ["resource", "volume", "duration"],
  watch: ["resource", "volume", "duration", "price", "address"],
} as const;

export type LinkCommand = keyof typeof FIELDS;
type Field = (typeof FIELDS)[LinkCommand][number];

/** What a payload opens: the command and its one-line arguments ("energy 65000 1h 2.5trx"). */
export interface StartLink {
  command: LinkCommand;
  arguments: string;
}

export type StartLinkParse =
  { ok: true; link: StartLink } | { ok: false; reason: "charset" | "command" | "field" | "extra" };

/** One payload field as a command argument; null when it is not that field's shape. */
function readField(field: Field, token: string): string | null {
  switch (field) {
    case "resource":
      return parseResource(token);
    case "volume": {
      const volume = parseVolume(token);
      return volume.ok ? volume.volume.toString() : null;
    }
    case "duration":
      return /^\d{1,4}[mhd]$/.test(token) ? token : null;
    case "price": {
      if (!/^\d{1,7}(?:p\d{1,6})?$/.test(token)) return null;
      const price = parseTrxLimit(token.replace("p", "."));
      return price.ok ? `${sunToTrx(price.sun)}trx` : null;
    }
    case "address":
      return checkTronAddress(token).ok ? token : null;
  }
}

/**
 * Reads a start payload. Fields come in the command's order and may stop early (the command
 * then asks for the rest); anything else is refused with the reason.
 */
export function parseStartPayload(payload: string): StartLinkParse {
  if (!START_PARAMETER.test(payload)) return { ok: false, reason: "charset" };
  const [command = "", ...tokens] = payload.split("_");
  if (!Object.hasOwn(FIELDS, command)) return { ok: false, reason: "command" };
  const fields = FIELDS[command as LinkCommand];
  if (tokens.length > fields.length) return { ok: false, reason: "extra" };
  const values: string[] = [];
  for (const [index, token] of tokens.entries()) {
    const value = readField(fields[index]!, token);
    if (value === null) return { ok: false, reason: "field" };
    values.push(value);
  }
  return { ok: true, link: { command: command as LinkCommand, arguments: values.join(" ") } };
}

/** The values a link can carry; fields are written in order up to the first one missing. */
export interface LinkValues {
  resource?: string;
  volume?: string | bigint;
  duration?: string;
  /** The TRX limit of a watch, in sun. */
  maxSun?: bigint;
  address?: string | null;
}

/** "65k", "2m", "1500": the shortest form parseVolume reads back as the same volume. */
export function compactVolume(volume: string | bigint): string {
  const value = BigInt(volume);
  if (value > 0n && value % 1_000_000n === 0n) return `${value / 1_000_000n}m`;
  if (value > 0n && value % 1_000n === 0n) return `${value / 1_000n}k`;
  return value.toString();
}

/**
 * The payload opening `command` with these values, or null when even without the address it
 * would not fit Telegram's 64 characters. An address that does not fit is left out: the command
 * then asks for it.
 */
export function startPayload(command: LinkCommand, values: LinkValues): string | null {
  const written: Record<Field, string | undefined> = {
    resource: values.resource,
    volume: values.volume === undefined ? undefined : compactVolume(values.volume),
    duration: values.duration,
    price: values.maxSun === undefined ? undefined : sunToTrx(values.maxSun).replace(".", "p"),
    address: values.address ?? undefined,
  };
  const build = (withAddress: boolean): string => {
    const parts: string[] = [command];
    for (const field of FIELDS[command]) {
      const value = written[field];
      if (value === undefined || (field === "address" && !withAddress)) break;
      parts.push(value);
    }
    return parts.join("_");
  };
  const full = build(true);
  if (START_PARAMETER.test(full)) return full;
  const short = build(false);
  return START_PARAMETER.test(short) ? short : null;
}

/** https://t.me/<bot>?start=<payload> */
export function deepLinkUrl(botUsername: string, payload: string): string {
  return `https://t.me/${botUsername}?start=${payload}`;
}

/** Telegram's share page for a link: the user picks a chat to send it to. */
export function shareUrl(link: string, text?: string): string {
  return `https://t.me/share/url?url=${encodeURIComponent(link)}${text ? `&text=${encodeURIComponent(text)}` : ""}`;
}
