import pino, { type DestinationStream, type Logger } from "pino";
import { sanitizeLogObject, serializeError } from "./log-sanitize";

export type { Logger } from "pino";

/** Field paths whose values are replaced by "[redacted]" wherever they appear in a log object. */
const REDACT_PATHS = [
  "apiKey",
  "*.apiKey",
  "key",
  "*.key",
  "token",
  "*.token",
  "botToken",
  "*.botToken",
  "secretKey",
  "*.secretKey",
  "BOT_TOKEN",
  "SECRET_KEY",
  "SECRET_KEY_PREVIOUS",
  "*.BOT_TOKEN",
  "*.SECRET_KEY",
  "*.SECRET_KEY_PREVIOUS",
  'headers["x-api-key"]',
  'headers["X-Api-Key"]',
  '*.headers["x-api-key"]',
  '*.headers["X-Api-Key"]',
  '*.*.headers["x-api-key"]',
  '*.*.headers["X-Api-Key"]',
  'headers["x-telegram-bot-api-secret-token"]',
  '*.headers["x-telegram-bot-api-secret-token"]',
  "authorization",
  "*.authorization",
  "password",
  "*.password",
  '*.headers["authorization"]',
];

// A bot token may also hide inside a URL or an error message (grammY puts it in request URLs).
const BOT_TOKEN_IN_TEXT = /\d{5,20}:[A-Za-z0-9_-]{30,}/g;
/**
 * The password of a URL written with credentials (postgres://user:password@host/db), whatever its
 * length: a short one cannot be searched for as a substring, but in a URL it sits between "user:"
 * and the last "@" before the host. Anchored on "://", so lines without a URL cost nothing.
 */
const URL_PASSWORD = /:\/\/([^\s/?#@:"'\\]*):[^\s/?#"'\\]*@/g;
/** Runs of characters an API key or a webhook token is made of, as they appear in a JSON line. */
const TOKEN_RUN = /[A-Za-z0-9_\-.~+/=]{12,}/g;
/** Per-user secrets remembered at most: the newest are the ones an operation in flight may log. */
const MAX_USER_SECRETS = 20_000;

/**
 * Values that must never leave the process in a log line, scrubbed from every serialized line as
 * a last line of defence behind the structural sanitizer (src/log-sanitize.ts) and path-based
 * redaction. Configured secrets (the bot token, the secret keys, the webhook secret, a database
 * password) are few and searched as substrings. Users' API keys and webhook tokens can be many,
 * so they are remembered in a bounded set and found by looking up each token-like run of the line.
 */
export class SecretScrubber {
  private readonly values = new Set<string>();
  private readonly userSecrets = new Set<string>();

  /** A configured secret: scrubbed wherever it appears as a substring. */
  add(value: string | undefined): void {
    if (value && value.length >= 8) this.values.add(value);
  }

  /** A user's secret (an API key, a webhook token): scrubbed wherever it appears as a whole token. */
  addUserSecret(value: string | undefined): void {
    if (!value || value.length < 12) return;
    this.userSecrets.delete(value);
    this.userSecrets.add(value);
    if (this.userSecrets.size > MAX_USER_SECRETS) this.userSecrets.delete(this.userSecrets.values().next().value!);
  }

  scrub(text: string): string {
    let result = text.replace(BOT_TOKEN_IN_TEXT, "[redacted]").replace(URL_PASSWORD, "://$1:[redacted]@");
    for (const value of this.values) {
      if (result.includes(value)) result = result.split(value).join("[redacted]");
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value && result.includes(escaped)) result = result.split(escaped).join("[redacted]");
    }
    if (this.userSecrets.size > 0) result = result.replace(TOKEN_RUN, (run) => this.scrubRun(run));
    return result;
  }

  private scrubRun(run: string): string {
    if (this.userSecrets.has(run)) return "[redacted]";
    // A secret inside a longer run: in a path ("/webhooks/marketplace/TOKEN"), after "=" or ".",
    // or behind a JSON escape ("\\nKEY" leaves "nKEY"). Pieces are looked up, never scanned.
    let changed = false;
    const pieces = run.split(/([/=.+~])/).map((piece) => {
      if (
        this.userSecrets.has(piece) ||
        (piece.length > 12 && "ntr".includes(piece[0]!) && this.userSecrets.has(piece.slice(1)))
      ) {
        changed = true;
        return piece.length > 12 && !this.userSecrets.has(piece) ? `${piece[0]}[redacted]` : "[redacted]";
      }
      return piece;
    });
    return changed ? pieces.join("") : run;
  }
}

/**
 * Readable lines only for a person at a terminal: LOG_FORMAT=json forces JSON, LOG_FORMAT=pretty
 * forces readable lines, and unset means readable exactly when stdout is a TTY.
 */
export function wantsPrettyLogs(format: "json" | "pretty" | undefined, stdoutIsTTY: boolean): boolean {
  return format === "pretty" || (format === undefined && stdoutIsTTY);
}

export interface LoggerOptions {
  level: string;
  pretty?: boolean;
  scrubber?: SecretScrubber;
  destination?: DestinationStream;
}

/** JSON logs in production, readable lines in development; secrets redacted by path and by value. */
export function createLogger(options: LoggerOptions): Logger {
  const scrubber = options.scrubber ?? new SecretScrubber();
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    hooks: {
      streamWrite: (line: string) => scrubber.scrub(line),
    },
    // Structural: whatever a call site passes, only plain data reaches the line (no context, no
    // dependency object, no call payload, no Buffer); errors keep message, stack and their ids.
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: sanitizeLogObject },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  if (options.pretty) {
    return pino({
      ...pinoOptions,
      transport: {
        target: "pino-pretty",
        options: { colorize: true, translateTime: "HH:MM:ss", ignore: "pid,hostname" },
      },
    });
  }
  return pino(pinoOptions);
}
