import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Bot } from "grammy";
import type { Kysely } from "kysely";
import { join } from "node:path";
import { parseConfig, type Config } from "./config";
import type { Logger } from "./logger";
import { migrateToLatest, openDatabase } from "./db/connection";
import { DatabaseHealth, databaseHealth } from "./db/health";
import type { Database } from "./db/schema";
import { WriteBatcher } from "./db/write-batcher";
import { reencryptCredentials } from "./db/repos/credentials";
import type { SecretBox } from "./security/secret-box";
import { Metrics } from "./metrics";
import { projectRoot } from "./paths";
import { createBot, registerProfile, updatesHandled, updatesInFlight, type TelegramTimeouts } from "./bot/create-bot";
import type { TypingOptions } from "./bot/middleware/typing";
import type { BotContext, BotDeps } from "./bot/context";
import { createI18n } from "./chat/i18n";
import { OptionsCache } from "./bot/options-cache";
import { createServer, type ServerEnv } from "./server/create-server";
import { registerTelegramWebhook, type TelegramWebhookHandle } from "./server/routes/telegram-webhook";
import { startPush, type PushHandle } from "./push";
import type { EmbeddedSandbox } from "./embedded-sandbox";
import { startPlayground, type PlaygroundHandle } from "./playground";
import { startMiniApp } from "./miniapp";
import { registerMenuButton } from "./bot/features/dashboard";
import { registerCommands } from "./bot/command-menu";
import type { Hono } from "hono";
import type { DestinationStream } from "pino";
import type { LeaderHandle } from "./scale/leader";
import { leasesHeldBy } from "./scale/leases";
import { databaseUpdateTurns, processUpdateTurns } from "./scale/update-turns";
import { databaseSendBudget, memorySendBudget, type ChatPace, type GlobalBudget } from "./scale/send-budget";
import { isPostgres } from "./db/dialect";
import { ArrivalWindow, DEFAULT_ARRIVAL_WINDOW } from "./scale/arrival-window";
import { startSecrets, telegramWebhookSecret } from "./startup/secrets";
import { startMarketplace } from "./startup/marketplace";
import { listen } from "./startup/listen";
import { receiveTelegramUpdates } from "./startup/telegram-updates";
import { readBuildInfo, registerBuildInfo } from "./startup/build-info";
import { watchWebhookInfo } from "./startup/webhook-info";
import { trustedProxies } from "./trusted-proxies";
import { databaseProblem, explained, listenProblem, telegramProblem } from "./startup/start-failure";

export { telegramWebhookSecret };
export { StartupProblem } from "./startup/start-failure";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface AppOptions {
  env: Record<string, string | undefined>;
  /** Where log lines go (tests capture them to prove no secret leaks). */
  logDestination?: DestinationStream;
  now?: () => number;
  /** Spacing of outgoing calls per chat (tests use 0, which also lifts the per-chat pace of replies unless telegramChatPace is given). */
  perChatMinTimeMs?: number;
  /** Telegram's overall budget as the bot's replies take from it (default 28/s); the benchmark lifts it. */
  telegramBudget?: GlobalBudget;
  /** A private chat's pace shared by replies and alerts (default DEFAULT_CHAT_PACE); null: replies are not paced. */
  telegramChatPace?: ChatPace | null;
  /** "typing…" while an update is slow (default after 300 ms); null: never (tests that count a chat's calls). */
  telegramTyping?: TypingOptions | null;
  /** See createBot's doubleTapMs; null: every press runs (tests press again at machine speed). */
  telegramDoubleTapMs?: number | null;
  /** Marketplace client retry back-off base (tests use small values). */
  marketplaceBackoffMs?: number;
  /** Bot API request and long-poll timeouts (tests shorten them). */
  telegramTimeouts?: Partial<TelegramTimeouts>;
  /** Retries of a Bot API call answered with 5xx or 429 (default 3; tests of failure paths use 0). */
  telegramServerErrorRetries?: number;
  /** How often webhook mode reads getWebhookInfo (default every minute; tests shorten it). */
  webhookInfoEveryMs?: number;
}

export interface App {
  config: Config;
  logger: Logger;
  db: Kysely<Database>;
  dbPath: string;
  bot: Bot<BotContext>;
  deps: BotDeps;
  http: Hono<ServerEnv>;
  url: string;
  marketplaceUrl: string;
  sandbox: EmbeddedSandbox | null;
  playground: PlaygroundHandle | null;
  push: PushHandle;
  stop(): Promise<void>;
}

const LOCALES_DIR = join(projectRoot(), "locales");

type Stops = Array<() => Promise<void> | void>;

/** The config, or a ConfigError listing every problem. */
function readConfig(env: AppOptions["env"]): Config {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new ConfigError(parsed.problems);
  return parsed.config;
}

/** Opens and migrates the database, then re-encrypts stored API keys under the current SECRET_KEY. */
async function openStore(config: Config, logger: Logger, box: SecretBox) {
  const opened = await openDatabase(config.DATABASE_URL, {
    poolMax: config.DATABASE_POOL_MAX,
    health: new DatabaseHealth(logger),
  });
  await migrateToLatest(opened.db);
  const rotation = await reencryptCredentials(opened.db, box);
  if (rotation.rotated > 0 || rotation.unreadable > 0)
    logger.info(rotation, "re-encrypted stored API keys under the current SECRET_KEY");
  return opened;
}

/** The playground's fake Telegram when it is on (its token and API root replace the real ones). */
async function startTelegramSide(
  config: Config,
  logger: Logger,
  sandbox: EmbeddedSandbox | null,
  host: string,
  stops: Stops,
) {
  if (!config.playground) return { playground: null, token: config.BOT_TOKEN, apiRoot: config.TELEGRAM_API_ROOT! };
  const playground = await startPlayground({
    logger,
    sandbox,
    address: { host, publicUrl: config.PUBLIC_URL ?? null },
  });
  stops.push(() => playground.stop());
  return { playground, token: playground.token, apiRoot: playground.apiRoot };
}

/** One arrival window and one send budget for the process: replies and alerts take from the same ones. */
function telegramLimits(options: AppOptions, db: Kysely<Database>, now: () => number) {
  // One for the process: replies and alerts together stay within Telegram's overall limit on arrival.
  const lifted = options.telegramBudget
    ? Math.floor(options.telegramBudget.perSecond + options.telegramBudget.burst)
    : 0;
  const sendWindow = new ArrivalWindow({
    windowMs: DEFAULT_ARRIVAL_WINDOW.windowMs,
    limit: Math.max(DEFAULT_ARRIVAL_WINDOW.limit, lifted),
    now,
  });
  // Telegram's budgets: in the database every replica shares (PostgreSQL), or in this process's
  // memory on SQLite, which is one process by design. Replies and alerts take from the same one.
  const sendBudget = isPostgres(db) ? databaseSendBudget(db) : memorySendBudget();
  return { sendWindow, sendBudget };
}

/** The bot's options from the app's: its token and API root, Telegram's limits, and the tests' overrides. */
function botOptions(
  options: AppOptions,
  token: string,
  apiRoot: string,
  limits: ReturnType<typeof telegramLimits>,
): Parameters<typeof createBot>[1] {
  return {
    token,
    apiRoot,
    perChatMinTimeMs: options.perChatMinTimeMs,
    timeouts: options.telegramTimeouts,
    overallBudget: options.telegramBudget,
    serverErrorRetries: options.telegramServerErrorRetries,
    ...limits,
    ...(options.telegramTyping !== undefined ? { typing: options.telegramTyping } : {}),
    ...(options.telegramDoubleTapMs !== undefined ? { doubleTapMs: options.telegramDoubleTapMs } : {}),
    chatPace:
      options.telegramChatPace !== undefined
        ? options.telegramChatPace
        : options.perChatMinTimeMs === 0
          ? null
          : undefined,
  };
}

/** The HTTP routes: push's, the Telegram webhook's in webhook mode, the playground's when it is on. */
function serverRoutes(
  push: PushHandle,
  telegramWebhook: TelegramWebhookHandle | null,
  playground: PlaygroundHandle | null,
): Array<(app: Hono<ServerEnv>) => void> {
  const routes: Array<(app: Hono<ServerEnv>) => void> = [push.routes];
  if (telegramWebhook) routes.push(telegramWebhook.register);
  if (playground) routes.push(playground.routes);
  return routes;
}

/** Replica gauges: whether this replica polls Telegram (polling mode only), the database, and how many named leases it holds. */
function replicaGauges(
  metrics: Metrics,
  db: Kysely<Database>,
  replicaId: string,
  leadership: LeaderHandle | null,
): void {
  // In webhook mode nobody polls: no series, so "no replica leads polling" cannot page there.
  if (leadership)
    metrics.gauge("replica_polling_leader", "1 when this replica holds the polling lease (runs getUpdates)", () =>
      leadership.isLeader() ? 1 : 0,
    );
  metrics.gauge(
    "database_up",
    "1 when the database answers this replica, 0 while its connection pool cannot reach it (SQLite: always 1)",
    () => (databaseHealth(db)?.reachable === false ? 0 : 1),
  );
  metrics.gauge(
    "replica_named_leases",
    "Named leases (polling leader, cron jobs) this replica holds",
    async () => (await leasesHeldBy(db, replicaId, Date.now())).length,
  );
}

interface Running {
  logger: Logger;
  db: Kysely<Database>;
  bot: Bot<BotContext>;
  push: PushHandle;
  leadership: LeaderHandle | null;
  telegramWebhook: TelegramWebhookHandle | null;
  stops: Stops;
}

/** Waits (at most 1.2 s) for the Telegram updates being handled: their offset or answer is already given. */
async function updatesEnded(
  bot: Bot<BotContext>,
  telegramWebhook: TelegramWebhookHandle | null,
  logger: Logger,
): Promise<void> {
  if (telegramWebhook) {
    if (!(await telegramWebhook.drain(1_200)))
      logger.warn("stopping with Telegram updates still being handled; Telegram will redeliver them");
  } else if (!(await updatesHandled(bot, 1_200))) {
    // The runner stops fetching at once but leaves the updates it took running: let them end
    // before the database closes under them (their offset is already confirmed to Telegram).
    logger.warn({ inFlight: updatesInFlight(bot) }, "stopping with Telegram updates still being handled after 1.2 s");
  }
}

/** Shuts down in the reverse order of start: updates, the updates being handled, push, the server and embedded services, the database. */
async function stopRunning({ logger, db, bot, push, leadership, telegramWebhook, stops }: Running): Promise<void> {
  logger.debug("stopping: long polling");
  await leadership?.stop();
  // The updates being handled and the pushed alerts stop side by side, so the whole stop fits in
  // about 1.5 s: updates get 1.2 s to end, the sender drains for under a second, then what this
  // replica still holds (polls, order checks, alerts) is handed back.
  logger.debug(
    "stopping: Telegram updates being handled (at most 1.2 s) and pushed alerts (draining the outbox for under a second, then handing back what is held)",
  );
  await Promise.all([updatesEnded(bot, telegramWebhook, logger), push.stop()]);
  logger.debug("stopping: HTTP server and embedded services");
  for (const stop of stops.reverse()) await stop();
  // A query still running (a poll cut short) would hold the pool's end: it is not waited for long.
  await Promise.race([db.destroy(), new Promise((resolve) => setTimeout(resolve, 200).unref())]);
  logger.info("stopped");
}

/** What Telegram shows of the bot, set in the background: its commands, its profile texts and the chat's menu button. */
function presentBot(bot: Bot<BotContext>, deps: BotDeps): void {
  void registerCommands(bot, deps);
  void registerProfile(bot, deps);
  void registerMenuButton(bot, deps);
}

/**
 * The composition root, used by `npm start` and by the tests alike:
 * config → logger → database → marketplace → bot → HTTP server → background jobs.
 * `stop()` shuts down in reverse order.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const config = readConfig(options.env);
  const now = options.now ?? Date.now;
  const onDatabase = (error: unknown) => databaseProblem(error, config);
  const { logger, scrubber, secretKey, box } = await explained(
    () => startSecrets(config, options.logDestination),
    onDatabase,
  );
  const { db, path: dbPath, dialect } = await explained(() => openStore(config, logger, box), onDatabase);

  const metrics = new Metrics();
  registerBuildInfo(metrics, readBuildInfo(config.GIT_COMMIT));
  const stops: Stops = [];
  const { sandbox, marketplaceUrl, marketplace } = await startMarketplace({
    config,
    logger,
    scrubber,
    metrics,
    backoffMs: options.marketplaceBackoffMs,
    stops,
  });

  // The playground stays on this machine unless HOST says otherwise (and parseConfig allowed it).
  const host = config.HOST ?? (config.playground ? "127.0.0.1" : "0.0.0.0");
  const { playground, token, apiRoot } = await startTelegramSide(config, logger, sandbox, host, stops);

  const i18n = createI18n(LOCALES_DIR);
  const replicaId = config.REPLICA_ID ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const limits = telegramLimits(options, db, now);
  // Set once the dashboard's record of open rule cards exists (below): a rule changed where no
  // card of it was drawn has its cards redrawn.
  let ruleChanged: (telegramId: number, ruleId: string) => void = () => undefined;
  const push = startPush({
    onRuleChanged: (telegramId, ruleId) => ruleChanged(telegramId, ruleId),
    db,
    logger,
    metrics,
    now,
    marketplace,
    box,
    config,
    i18n,
    token: token!,
    apiRoot,
    replicaId,
    ...limits,
    ...(config.LEASE_MS === undefined ? {} : { leaseMs: config.LEASE_MS }),
  });
  let ownUrl: string | null = null;
  const deps: BotDeps = {
    config,
    db,
    writes: new WriteBatcher(db),
    logger,
    box,
    metrics,
    now,
    sandbox: sandbox !== null,
    marketplace,
    options: new OptionsCache(now),
    i18n,
    followOrder: (telegramId, orderId) => push.followOrder(telegramId, orderId),
    onLinked: (telegramId) => push.primeNotifications(telegramId),
    rememberSecret: (value) => scrubber.addUserSecret(value),
    ruleChanged: (telegramId, ruleId) => ruleChanged(telegramId, ruleId),
    ownUrl: () => ownUrl,
  };
  const bot = createBot(deps, botOptions(options, token!, apiRoot, limits));
  const dashboard = startMiniApp({ ...deps, bot, botToken: token! });
  ruleChanged = (telegramId, ruleId) => dashboard.cards.ruleChanged(telegramId, ruleId);
  // Cards being redrawn in the background end before what they need (the database, Telegram) stops,
  // within a second: one still waiting on a slow marketplace is left (the card updates at its next tap).
  stops.push(() =>
    Promise.race([dashboard.cards.idle(), new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())]),
  );

  const webhookSecret = telegramWebhookSecret(secretKey);
  const telegramWebhook =
    config.BOT_MODE === "webhook"
      ? registerTelegramWebhook(bot, webhookSecret, logger, {
          turns: isPostgres(db)
            ? databaseUpdateTurns(db, replicaId, { writes: deps.writes })
            : processUpdateTurns(db, replicaId, { writes: deps.writes }),
          health: databaseHealth(db),
        })
      : null;
  const http = createServer(
    {
      db,
      logger,
      metrics,
      replicaId,
      dialect,
      metricsToken: config.METRICS_TOKEN,
      trustedProxies: trustedProxies(config.TRUSTED_PROXIES),
    },
    [...serverRoutes(push, telegramWebhook, playground), dashboard.routes],
  );

  // Before the server accepts /telegram: an update handled by an uninitialised bot fails.
  await explained(() => bot.init(), telegramProblem);
  if (!bot.botInfo.supports_inline_queries) {
    logger.warn(
      { bot: bot.botInfo.username },
      'inline mode is off for this bot, so "@bot 65k 1h" quotes do not work in chats: in @BotFather send /setinline, choose the bot and set a placeholder',
    );
  }
  const server = await explained(
    () => listen(http, config.PORT, host),
    (error) => listenProblem(error, config.PORT, host),
  );
  const url = server.url;
  ownUrl = url;
  playground?.attach({ push, db, now, selfUrl: url, publicUrl: config.PUBLIC_URL ?? null });
  stops.push(() => server.close());

  const leadership = await receiveTelegramUpdates({
    config,
    db,
    logger,
    bot,
    replicaId,
    webhookSecret,
    timeouts: options.telegramTimeouts,
  });
  replicaGauges(metrics, db, replicaId, leadership);
  if (config.BOT_MODE === "webhook") {
    const webhookInfo = watchWebhookInfo({
      getWebhookInfo: () => bot.api.getWebhookInfo(),
      metrics,
      logger,
      now,
      everyMs: options.webhookInfoEveryMs,
    });
    stops.push(() => webhookInfo.stop());
  }
  presentBot(bot, deps);
  // The sender keeps to Telegram's limits through the budget shared by all replicas, so it uses a
  // plain Api (no per-process throttler in front of it).
  push.start();

  let stopped = false;
  return {
    config,
    logger,
    db,
    dbPath,
    bot,
    deps,
    http,
    url,
    marketplaceUrl,
    sandbox,
    playground,
    push,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopRunning({ logger, db, bot, push, leadership, telegramWebhook, stops });
    },
  };
}
