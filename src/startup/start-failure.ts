import { GrammyError, HttpError } from "grammy";
import type { Config } from "#src/config";

/**
 * A start-up step failed for a reason the operator can fix: `message` is one line that names the
 * variable to look at and what to do; `cause` keeps the original error for a debug-level look.
 * Never holds a secret (no token, no database password).
 */
export class StartupProblem extends Error {
  constructor(
    readonly variable: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${variable}: ${message}`, options);
    this.name = "StartupProblem";
  }
}

/** The error's code (Node's system errors, pg's SQLSTATE), looking through wrapped causes. */
function codeOf(error: unknown): string | undefined {
  for (let each = error, depth = 0; each && depth < 5; depth += 1) {
    const code = (each as { code?: unknown }).code;
    if (typeof code === "string") return code;
    // AggregateError (a host with several addresses, each refused) carries the codes in its errors.
    const inner = (each as { errors?: unknown[] }).errors?.[0];
    each = (each as { cause?: unknown }).cause ?? inner;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** host:port of a PostgreSQL URL, without its user or password. */
function postgresServer(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || "5432"}`;
  } catch {
    return "the server";
  }
}

const POSTGRES_ANSWERS: Record<string, string> = {
  ECONNREFUSED: "refused the connection (nothing listens there)",
  ENOTFOUND: "has a host name that does not resolve",
  EAI_AGAIN: "has a host name that could not be resolved now",
  EHOSTUNREACH: "cannot be reached from here",
  ENETUNREACH: "cannot be reached from here",
  ETIMEDOUT: "did not answer in time",
  "28P01": "refused the user name or password",
  "28000": "refused this user or client address (pg_hba.conf)",
  "3D000": "has no database of that name",
  "57P03": "is starting up or shutting down",
  "53300": "has no connection slots left",
};

/** A failure to open or migrate the database, told in terms of DATABASE_URL; null when it is something else. */
export function databaseProblem(error: unknown, config: Pick<Config, "DATABASE_URL">): StartupProblem | null {
  const code = codeOf(error);
  const message = messageOf(error);
  if (/^postgres(ql)?:/i.test(config.DATABASE_URL)) {
    const timedOut = /timeout/i.test(message) && !code;
    const answer = code ? POSTGRES_ANSWERS[code] : timedOut ? POSTGRES_ANSWERS.ETIMEDOUT : undefined;
    if (!answer) return null;
    return new StartupProblem(
      "DATABASE_URL",
      `the PostgreSQL server at ${postgresServer(config.DATABASE_URL)} ${answer}. Check that PostgreSQL runs and that DATABASE_URL names its host, port, user, password and database.`,
      { cause: error },
    );
  }
  const path = (error as { path?: unknown }).path;
  if (typeof path === "string" && code && ["EEXIST", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENOENT"].includes(code)) {
    const why =
      code === "EEXIST" || code === "ENOTDIR"
        ? "a file is in the way"
        : code === "EROFS"
          ? "the file system is read-only"
          : code === "ENOENT"
            ? "a folder on the way is missing"
            : "permission denied";
    return new StartupProblem(
      "DATABASE_URL",
      `the data folder ${path} cannot be created or written (${why}). Point DATABASE_URL=file:… at a folder this user can write, or fix that path.`,
      { cause: error },
    );
  }
  return null;
}

/** The HTTP server could not listen, told in terms of PORT or HOST; null when it is something else. */
export function listenProblem(error: unknown, port: number, host: string): StartupProblem | null {
  const code = codeOf(error);
  if (code === "EADDRINUSE")
    return new StartupProblem(
      "PORT",
      `port ${port} on ${host} is already in use by another program. Stop that program or set PORT to a free port.`,
      { cause: error },
    );
  if (code === "EACCES")
    return new StartupProblem(
      "PORT",
      `port ${port} needs privileges this user lacks (ports below 1024). Set PORT to 1024 or above.`,
      { cause: error },
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return new StartupProblem(
      "HOST",
      `${host} is not an address of this machine. Set HOST to one of its addresses, or 0.0.0.0 for all.`,
      { cause: error },
    );
  return null;
}

/** Telegram refused or could not be reached for getMe, told in terms of BOT_TOKEN or TELEGRAM_API_ROOT; null otherwise. */
export function telegramProblem(error: unknown): StartupProblem | null {
  if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
    return new StartupProblem(
      "BOT_TOKEN",
      `Telegram refuses this token (${error.error_code}: ${error.description}): it was revoked or mistyped. Copy the bot's current token from @BotFather (/mybots → API Token) into BOT_TOKEN.`,
      { cause: error },
    );
  }
  if (error instanceof HttpError) {
    return new StartupProblem(
      "TELEGRAM_API_ROOT",
      "the Bot API server cannot be reached. Check this machine's network, or TELEGRAM_API_ROOT when it points at a Bot API server of your own.",
      { cause: error },
    );
  }
  return null;
}

/** Runs a start-up step, turning a failure `explain` recognises into a StartupProblem. */
export async function explained<T>(
  step: () => Promise<T> | T,
  explain: (error: unknown) => StartupProblem | null,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw explain(error) ?? error;
  }
}
