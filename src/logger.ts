import pino, { type DestinationStream, type Logger } from "pino";

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
  '*.headers["authorization"]',
];

// A bot token may also hide inside a URL or an error message (grammY puts it in request URLs).
const BOT_TOKEN_IN_TEXT = /\d{5,20}:[A-Za-z0-9_-]{30,}/g;

/**
 * Values that must never leave the process in a log line. Static secrets (the bot token, the
 * secret keys) are registered at start; the logger scrubs them from every serialized line as a
 * last line of defence behind the path-based redaction.
 */
export class SecretScrubber {
  private readonly values = new Set<string>();

  add(value: string | undefined): void {
    if (value && value.length >= 8) this.values.add(value);
  }

  scrub(text: string): string {
    let result = text.replace(BOT_TOKEN_IN_TEXT, "[redacted]");
    for (const value of this.values) {
      if (result.includes(value)) result = result.split(value).join("[redacted]");
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value && result.includes(escaped)) result = result.split(escaped).join("[redacted]");
    }
    return result;
  }
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
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  if (options.pretty) {
    return pino({ ...pinoOptions, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss", ignore: "pid,hostname" } } });
  }
  return pino(pinoOptions);
}
