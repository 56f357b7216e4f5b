import type { Logger } from "#src/logger";

/** Socket errors that mean the database server is not there (refused, reset, timed out, unresolvable). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
/** PostgreSQL's own "not now": shutting down, crashed, starting up (57P01-57P03), and every connection exception (class 08). */
const SERVER_CODES = /^(57P0[1-3]|08[0-9A-Z]{3})$/;
/** What pg says when a connection went away under it or never came. */
const LOST_CONNECTION =
  /connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|connection ended unexpectedly|server closed the connection unexpectedly/i;

/**
 * True when `error` (or an error it wraps: `cause`, a grammY BotError's `error`, an AggregateError's
 * errors) says the database server could not be reached, as opposed to a statement it refused.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SERVER_CODES.test(code))) return true;
  if (typeof message === "string" && LOST_CONNECTION.test(message)) return true;
  const wrapped = [cause, (error as { error?: unknown }).error, ...(Array.isArray(errors) ? errors : [])];
  return wrapped.some((inner) => inner !== error && isDatabaseUnreachable(inner, depth + 1));
}

/**
 * Whether the database answers, as the connection pool sees it: the first failure to reach it is
 * logged once ("database unreachable"), and the first answer after that once ("database reachable
 * again", with how long it was gone). Requests and background passes that fail meanwhile ask it
 * whether it already said so (explains) and then log nothing above debug.
 */
export class DatabaseHealth {
  private downSince: number | null = null;
  private failures = 0;

  constructor(private logger?: Logger) {}

  /** Where the transitions are logged (the app's logger, once it exists). */
  attach(logger: Logger): void {
    this.logger = logger;
  }

  get reachable(): boolean {
    return this.downSince === null;
  }

  /**
   * The connection pool lost a connection or could not make one (only the pool calls this: its
   * errors are the database's for certain). The first such failure since the database last
   * answered is logged; the rest are counted.
   */
  noteFailure(error: unknown): void {
    if (!isDatabaseUnreachable(error)) return;
    this.failures += 1;
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.failures = 1;
    // The driver's reason without its stack: an outage is the server's, not a defect of this code.
    this.logger?.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      "database unreachable: requests that need it are refused (503) and background work waits until it answers again",
    );
  }

  /**
   * True when `error` is the outage this tracker already logged: the database is unreachable and
   * the error says so. The caller then logs nothing above debug.
   */
  explains(error: unknown): boolean {
    return this.downSince !== null && isDatabaseUnreachable(error);
  }

  /** The database answered (a connection was made). */
  noteAnswer(): void {
    if (this.downSince === null) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = null;
    this.logger?.info({ downMs, failedCalls: this.failures }, "database reachable again");
  }
}

const healthOf = new WeakMap<object, DatabaseHealth>();

/** Registers the health tracker of a database opened by openDatabase (PostgreSQL). */
export function setDatabaseHealth(db: object, health: DatabaseHealth): void {
  healthOf.set(db, health);
}

/** The health tracker of `db` (undefined on SQLite, whose file is always there). */
export function databaseHealth(db: object): DatabaseHealth | undefined {
  return healthOf.get(db);
}

/**
 * Reports a failed pass of background work (a loop, a cron job): when the database is
 * unreachable its health tracker has said so once and this adds nothing above debug; any other
 * failure is logged as an error with `message`.
 */
export function reportFailure(
  db: object,
  logger: Logger,
  error: unknown,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  if (databaseHealth(db)?.explains(error)) logger.debug({ err: error, ...fields }, message);
  else logger.error({ err: error, ...fields }, message);
}
