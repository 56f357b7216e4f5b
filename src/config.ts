import { z } from "zod";
import { isLoopbackHost } from "./listen-address";
import { trustedProxyEntries, trustedProxyEntryProblem } from "./trusted-proxies";

/**
 * Every setting the bot reads, from the environment (and `.env`, loaded by main before this runs).
 * `parseConfig` is pure: it never touches the disk or the network, so tests call it directly.
 */

const BOT_TOKEN_PATTERN = /^\d{1,20}:[A-Za-z0-9_-]{30,}$/;

const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
const optionalString = z.preprocess(blankToUndefined, z.string().optional());

const httpUrl = (what: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === "http:" || url.protocol === "https:";
        } catch {
          return false;
        }
      }, `expected ${what}`)
      .transform((value) => value.replace(/\/+$/, ""))
      .optional(),
  );

const secretKey = z.preprocess(
  blankToUndefined,
  z
    .string()
    .refine((value) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === 32, {
      message: "expected 32 random bytes, base64-encoded (generate one with: openssl rand -base64 32)",
    })
    .optional(),
);

const integerInRange = (min: number, max: number, fallback: number) =>
  z.preprocess(
    (value) => (blankToUndefined(value) === undefined ? fallback : value),
    z.coerce
      .number({ message: `expected a whole number from ${min} to ${max}` })
      .int(`expected a whole number from ${min} to ${max}`)
      .min(min, `expected a whole number from ${min} to ${max}`)
      .max(max, `expected a whole number from ${min} to ${max}`),
  );

// node-cron accepts 5 or 6 fields (seconds optional); a light check here, node-cron validates fully at start.
const cronExpression = z.preprocess(
  (value) => blankToUndefined(value) ?? "*/30 * * * * *",
  z.string().refine((value) => {
    const fields = value.trim().split(/\s+/);
    return (
      (fields.length === 5 || fields.length === 6) && fields.every((field) => /^[\d*/,\-A-Za-z?LW#]+$/.test(field))
    );
  }, "expected a cron expression of 5 or 6 fields, e.g. */30 * * * * * (every 30 s)"),
);

const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const durationMessage = (min: string, max: string) =>
  `expected a duration with its unit, from ${min} to ${max}: e.g. 600s, 10m or 1h`;

/** A duration written with its unit (`500ms`, `600s`, `10m`, `1h`), read as milliseconds; a bare number is refused (seconds or milliseconds?). */
const durationMs = (fallback: string, minMs: number, maxMs: number, min: string, max: string) =>
  z.preprocess(
    (value) => blankToUndefined(value) ?? fallback,
    z.string().transform((value, ctx) => {
      const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/i.exec(value);
      const ms = match
        ? Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2]!.toLowerCase() as keyof typeof DURATION_UNITS_MS])
        : Number.NaN;
      if (!(ms >= minMs && ms <= maxMs)) {
        ctx.addIssue({ code: "custom", message: durationMessage(min, max) });
        return z.NEVER;
      }
      return ms;
    }),
  );

const databaseUrl = z.preprocess(
  (value) => blankToUndefined(value) ?? "file:./data/bot.db",
  z
    .string()
    .refine(
      (value) => value === ":memory:" || /^file:.+/.test(value) || /^postgres(ql)?:\/\/.+/.test(value),
      "expected file:PATH, :memory: or postgres://user:password@host/db",
    ),
);

/** TRUSTED_PROXIES: addresses or CIDRs, comma-separated; every bad entry is named. */
const trustedProxyList = z.preprocess(
  (value) => blankToUndefined(value) ?? "",
  z.string().transform((value, ctx) => {
    const entries = trustedProxyEntries(value);
    const problems = entries
      .map((entry, index) => trustedProxyEntryProblem(entry, index + 1))
      .filter((problem): problem is string => problem !== null);
    if (problems.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `expected comma-separated IP addresses or CIDRs of the reverse proxies (e.g. 172.16.0.0/12,fd00::/8): ${problems.join("; ")}`,
      });
      return z.NEVER;
    }
    return entries;
  }),
);

export const configSchema = z.object({
  BOT_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(
        BOT_TOKEN_PATTERN,
        "expected a token from @BotFather like 123456:ABC-DEF… (digits, a colon, then 30+ letters)",
      )
      .optional(),
  ),
  MARKETPLACE_URL: httpUrl("an http(s) URL, the marketplace base URL, e.g. https://marketplace.example"),
  TELEGRAM_API_ROOT: httpUrl("an http(s) URL of a Bot API server, e.g. https://api.telegram.org").transform(
    (value) => value ?? "https://api.telegram.org",
  ),
  DATABASE_URL: databaseUrl,
  SECRET_KEY: secretKey,
  SECRET_KEY_PREVIOUS: secretKey,
  BOT_MODE: z.preprocess(
    (value) => blankToUndefined(value) ?? "polling",
    z.enum(["polling", "webhook"], { message: "expected polling or webhook" }),
  ),
  PUBLIC_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine((value) => {
        try {
          return new URL(value).protocol === "https:";
        } catch {
          return false;
        }
      }, "expected the public https origin of this server, e.g. https://bot.example.com")
      .transform((value) => value.replace(/\/+$/, ""))
      .optional(),
  ),
  HOST: optionalString,
  PORT: integerInRange(0, 65535, 8080),
  NOTIFICATIONS_POLL: cronExpression,
  /** How often a linked user with nothing in motion is polled, in ms (written `10m`, `1h`, `600s`); users with something in motion are polled every tick. */
  POLL_IDLE_INTERVAL: durationMs("10m", 1_000, 86_400_000, "1s", "24h"),
  LOG_LEVEL: z.preprocess(
    (value) => blankToUndefined(value) ?? "info",
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      message: "expected one of fatal, error, warn, info, debug, trace, silent",
    }),
  ),
  /** `json` always, `pretty` always, unset: readable lines on a terminal, JSON elsewhere (containers, CI). */
  LOG_FORMAT: z.preprocess(
    (value) => blankToUndefined(value),
    z.enum(["json", "pretty"], { message: "expected json or pretty" }).optional(),
  ),
  /** Requests per second the notification poller may send to the marketplace (it publishes no limit). */
  POLL_RATE: integerInRange(1, 10_000, 50),
  MARKETPLACE_TIMEOUT_MS: integerInRange(100, 120_000, 10_000),
  /** Optional: require a `sha256=` HMAC of the raw body on marketplace webhooks (the marketplace spec does not define signing yet). */
  MARKETPLACE_WEBHOOK_SECRET: optionalString,
  MARKETPLACE_WEBHOOK_SIGNATURE_HEADER: z.preprocess((value) => blankToUndefined(value) ?? "x-signature", z.string()),
  NODE_ENV: optionalString,
  /** PostgreSQL connections per replica. */
  DATABASE_POOL_MAX: integerInRange(1, 100, 10),
  /** How long a replica's claim on an alert, a user to poll or an order to check lasts; unset: 30 s for alerts, 60 s for polls and orders. */
  LEASE_MS: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ message: "expected a whole number of milliseconds from 1000 to 600000" })
      .int("expected a whole number of milliseconds from 1000 to 600000")
      .min(1_000, "expected a whole number of milliseconds from 1000 to 600000")
      .max(600_000, "expected a whole number of milliseconds from 1000 to 600000")
      .optional(),
  ),
  /** This replica's name in /metrics (never in /readyz). */
  REPLICA_ID: z.preprocess(blankToUndefined, z.string().max(100, "expected at most 100 characters").optional()),
  /** The commit this build was made from, shown in /metrics' bot_build_info (the image's GIT_COMMIT build argument); unset: "unknown". */
  GIT_COMMIT: z.preprocess(blankToUndefined, z.string().max(100, "expected at most 100 characters").optional()),
  /** The one way to let the playground listen on a non-loopback HOST: it must be asked for in so many words. */
  PLAYGROUND_PUBLIC: z.preprocess(
    (value) => (typeof value === "string" ? value.trim().toLowerCase() : value) || "false",
    z.enum(["true", "false"], { message: "expected true or false" }).transform((value) => value === "true"),
  ),
  /** What a client other than loopback sends as `Authorization: Bearer …` to read /metrics; unset: loopback only. */
  METRICS_TOKEN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(
        /^[\x21-\x7e]{16,256}$/,
        "expected 16 to 256 printable characters without spaces (generate one with: openssl rand -hex 32)",
      )
      .optional(),
  ),
  /** The reverse proxies in front of the bot: only from them is X-Forwarded-For believed (limits, /metrics' loopback rule, logs). */
  TRUSTED_PROXIES: trustedProxyList,
});

export type Config = z.infer<typeof configSchema> & {
  /** True when BOT_TOKEN is unset: the bot runs against the local playground's Bot API. */
  playground: boolean;
};

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Validates the environment; on failure returns one line per problem naming the variable (never its value). */
export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "config"}: ${issue.message}`);
    return { ok: false, problems: [...new Set(problems)] };
  }
  const config = result.data;
  const problems: string[] = [];
  if (config.BOT_MODE === "webhook" && !config.PUBLIC_URL)
    problems.push("PUBLIC_URL: required when BOT_MODE=webhook (the https origin Telegram posts updates to)");
  if (config.BOT_MODE === "webhook" && !config.BOT_TOKEN) problems.push("BOT_TOKEN: required when BOT_MODE=webhook");
  if (config.SECRET_KEY_PREVIOUS && !config.SECRET_KEY)
    problems.push("SECRET_KEY: required when SECRET_KEY_PREVIOUS is set (the new key of the rotation)");
  if (!config.BOT_TOKEN && config.HOST && !isLoopbackHost(config.HOST) && !config.PLAYGROUND_PUBLIC)
    problems.push(playgroundExposureProblem(config.HOST));
  const onPostgres = /^postgres(ql)?:/i.test(config.DATABASE_URL);
  if (config.BOT_TOKEN && !config.MARKETPLACE_URL && onPostgres) problems.push(SANDBOX_PER_REPLICA_PROBLEM);
  if (config.BOT_TOKEN && !config.SECRET_KEY && onPostgres) problems.push(SECRET_KEY_PER_REPLICA_PROBLEM);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, config: { ...config, playground: !config.BOT_TOKEN } };
}

/**
 * Without MARKETPLACE_URL each process starts its own embedded sandbox in memory. PostgreSQL means
 * replicas sharing one database, so real Telegram users would be served by several private
 * sandboxes (a key linked through one replica is unknown to the next). Names variables, never values.
 */
const SANDBOX_PER_REPLICA_PROBLEM =
  "MARKETPLACE_URL: required when DATABASE_URL is a PostgreSQL database and BOT_TOKEN is set. " +
  "Without it every replica starts its own private in-memory sandbox marketplace (no real TRX), so real Telegram users would reach a different sandbox on each replica and a key linked on one would be unknown to the others. " +
  "Set MARKETPLACE_URL to the marketplace's base URL (or to one sandbox all replicas share); for a single local bot on the embedded sandbox, use a SQLite DATABASE_URL (file:…).";

/**
 * Without SECRET_KEY a process generates its own key into its data folder. PostgreSQL means
 * replicas sharing one database, so each would encrypt users' API keys and derive the Telegram
 * webhook secret under a different key: a key linked through one replica would be unreadable on the next.
 */
const SECRET_KEY_PER_REPLICA_PROBLEM =
  "SECRET_KEY: required when DATABASE_URL is a PostgreSQL database and BOT_TOKEN is set. " +
  "Without it every replica generates its own key into its own data folder, so each would encrypt users' API keys and derive the webhook secret under a different key, and a key linked through one replica could not be read by the others. " +
  "Generate one with: openssl rand -base64 32, and give every replica the same SECRET_KEY.";

/**
 * Without BOT_TOKEN the server is the local playground, which holds the sandbox's demo key and lets
 * its visitor act as any simulated user: on a network address that is everyone's, so it takes an
 * explicit PLAYGROUND_PUBLIC=true (the Docker image's HOST=0.0.0.0 alone is not enough).
 */
function playgroundExposureProblem(host: string): string {
  return (
    `PLAYGROUND_PUBLIC: HOST=${host} is not a loopback address and BOT_TOKEN is unset, so the local playground would be served to the network. ` +
    "That is dangerous: anyone who can reach the port acts as any simulated user, drives the sandbox and reads the demo API key. " +
    "Set HOST=127.0.0.1 (or leave HOST unset) to keep it on this machine, or set BOT_TOKEN to run the real bot; " +
    "to expose the playground on purpose, set PLAYGROUND_PUBLIC=true (for example PLAYGROUND_PUBLIC=true npm start, or docker run -e PLAYGROUND_PUBLIC=true …)."
  );
}

/** The folder beside a file database (where a generated SECRET_KEY is kept); ./data otherwise. */
export function dataDirectory(config: Pick<Config, "DATABASE_URL">): string {
  if (config.DATABASE_URL.startsWith("file:")) {
    const path = config.DATABASE_URL.slice("file:".length);
    const slash = path.lastIndexOf("/");
    return slash > 0 ? path.slice(0, slash) : ".";
  }
  return "./data";
}
