import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { LANGUAGES } from "#src/chat/i18n";
import { AUTO_BUY_VIEW } from "#src/chat/callback-data";
import { markKeyBroken } from "#src/db/repos/credentials";
import { databaseHealth, isDatabaseUnreachable } from "#src/db/health";
import { projectRoot } from "#src/paths";
import type { ServerEnv } from "#src/server/create-server";
import { readDashboard, readRules } from "./dashboard-data";
import type { MiniAppDeps } from "./deps";
import { checkInitData, type InitDataSigner } from "./init-data";
import { pageHtml, pageTexts } from "./page";
import { changeRule } from "./rule-actions";
import { changeAutoBuy, readAutoBuys } from "./auto-buys";
import { signerAccount } from "./signer-account";
import { spendingReader } from "./spending";

/** The page's script: src/miniapp/web bundled by `npm run build:web` (part of `npm run build`). */
const SCRIPT = join(projectRoot(), "dist", "miniapp", "app.js");
const STYLE = join(projectRoot(), "src", "miniapp", "web", "app.css");

/**
 * Telegram shows a Mini App in its web client inside a frame of web.telegram.org, and the
 * playground beside its chat; nothing else may frame it. Everything it loads is its own.
 */
const MINIAPP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'self' https://web.telegram.org";

const authorization = z.string().regex(/^tma [^\s]{1,4096}$/);
const ruleParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/), action: z.enum(["pause", "resume"]) });
const autoBuyParams = z.object({
  id: z.string().refine((id) => AUTO_BUY_VIEW.parse(id) !== null),
  action: z.enum(["pause", "resume"]),
});
const spendingQuery = z.object({ days: z.enum(["7", "30"]).default("7") });

/**
 * The page's script. Asked for by its version (the page names it so), it is kept by the client
 * until the next build; gzipped (done once, at start) for a client that accepts it, since a Mini
 * App opens on a phone.
 */
function scriptAnswer(
  c: Context<ServerEnv>,
  script: string,
  bundle: { gzip: Buffer; version: string },
  headers: Record<string, string>,
): Response {
  const cache = c.req.query("v") === bundle.version ? "public, max-age=31536000, immutable" : "no-cache";
  const common = { ...headers, "cache-control": cache, vary: "accept-encoding" };
  if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? ""))
    return c.body(new Uint8Array(bundle.gzip), 200, { ...common, "content-encoding": "gzip" });
  return c.body(script, 200, common);
}

/** GET /app (the dashboard Mini App), its script and style, and its data under /app/api. */
export function registerMiniApp(deps: MiniAppDeps): (app: Hono<ServerEnv>) => void {
  const script = existsSync(SCRIPT) ? readFileSync(SCRIPT, "utf8") : null;
  if (!script)
    deps.logger.warn(
      { script: SCRIPT },
      "the dashboard's script is not built: /app answers 503 until npm run build:web has run (npm start builds it)",
    );
  const style = readFileSync(STYLE, "utf8");
  const bundle =
    script === null
      ? null
      : { gzip: gzipSync(script), version: createHash("sha256").update(script).digest("hex").slice(0, 16) };
  const html = pageHtml(pageTexts(deps.i18n, LANGUAGES), bundle?.version);
  const spending = spendingReader(deps);
  const headers = (type: string) => ({
    "content-type": type,
    "cache-control": "no-cache",
    "content-security-policy": MINIAPP_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });

  return (app) => {
    app.get("/app", (c) =>
      script
        ? c.body(html, 200, headers("text/html; charset=utf-8"))
        : c.text("the dashboard is not built: run npm run build:web", 503),
    );
    app.get("/app/app.js", (c) =>
      script && bundle
        ? scriptAnswer(c, script, bundle, headers("text/javascript; charset=utf-8"))
        : c.text("not built", 503),
    );
    app.get("/app/app.css", (c) => c.body(style, 200, headers("text/css; charset=utf-8")));

    app.get("/app/api/dashboard", (c) =>
      signed(c, deps, async (signer) => {
        // Identical reads in flight for one user share one: a burst of reloads costs one read.
        const shared = (await deps.bounds.dashboards.run(signer.telegramId, () =>
          dashboardAnswer(deps, signer),
        )) as Awaited<ReturnType<typeof dashboardAnswer>>;
        return c.json({ ...shared, firstName: signer.firstName });
      }),
    );

    // What an open, visible dashboard reads every 2 s to follow its rules (see web/main.js).
    app.get("/app/api/rules", (c) =>
      signed(
        c,
        deps,
        async (signer) => {
          const shared = (await deps.bounds.ruleReads.run(signer.telegramId, () =>
            rulesAnswer(deps, signer),
          )) as Awaited<ReturnType<typeof rulesAnswer>>;
          return c.json(shared);
        },
        deps.bounds.watchers,
      ),
    );

    app.get("/app/api/spending", (c) =>
      signed(c, deps, async (signer) => {
        const query = spendingQuery.safeParse({ days: c.req.query("days") });
        if (!query.success) return c.json({ error: "days must be 7 or 30" }, 400);
        const account = await signerAccount(deps, signer);
        return c.json(await spending(account, query.data.days === "30" ? 30 : 7));
      }),
    );

    app.post("/app/api/rules/:id/:action", (c) =>
      signed(c, deps, async (signer) => {
        const params = ruleParams.safeParse(c.req.param());
        if (!params.success) return c.json({ error: "unknown rule action" }, 400);
        const account = await signerAccount(deps, signer);
        const outcome = await changeRule(deps, account, params.data.id, params.data.action);
        return c.json({ message: outcome.message, rule: outcome.rule }, outcome.status);
      }),
    );

    app.post("/app/api/autobuys/:id/:action", (c) =>
      signed(c, deps, async (signer) => {
        const params = autoBuyParams.safeParse(c.req.param());
        if (!params.success) return c.json({ error: "unknown auto-buy action" }, 400);
        const account = await signerAccount(deps, signer);
        const outcome = await changeAutoBuy(deps, account, params.data.id, params.data.action);
        return c.json({ message: outcome.message, autoBuy: outcome.autoBuy }, outcome.status);
      }),
    );
  };
}

/**
 * Runs `handle` for the Telegram user who signed the request's init data, or answers 401 before
 * anything is read: the init data travels in `Authorization: tma <initData>` on every request
 * (no cookie, no session), and must carry a valid signature under this bot's token and be at most
 * an hour old. Past the signer's window (SIGNER_LIMIT; WATCH_LIMIT for the rule list) the answer is 429 with Retry-After, before
 * anything is read. With the database unreachable the answer is 503 with Retry-After.
 */
async function signed(
  c: Context<ServerEnv>,
  deps: MiniAppDeps,
  handle: (signer: InitDataSigner) => Promise<Response>,
  window = deps.bounds.signers,
): Promise<Response> {
  const header = authorization.safeParse(c.req.header("authorization"));
  const check = header.success
    ? checkInitData(header.data.slice(4), deps.botToken, deps.now())
    : ({ ok: false, reason: "missing" } as const);
  c.header("cache-control", "no-store");
  if (!check.ok) {
    deps.metrics.refusedRequests.inc({ route: "/app/api", reason: `init_data_${check.reason}` });
    c.header("WWW-Authenticate", 'tma realm="dashboard"');
    return c.json({ error: "unauthorized", reason: check.reason }, 401);
  }
  const wait = window.take(String(check.signer.telegramId), deps.now());
  if (wait > 0) {
    deps.metrics.refusedRequests.inc({ route: "/app/api", reason: "signer_limit" });
    c.header("Retry-After", String(Math.ceil(wait / 1000)));
    return c.json({ error: "too many requests", retryAfter: Math.ceil(wait / 1000) }, 429);
  }
  try {
    return await handle(check.signer);
  } catch (error) {
    if (!isDatabaseUnreachable(error)) throw error;
    // The outage is logged once by the database's health tracker (src/db/health.ts), not per request.
    const route = c.req.routePath;
    if (databaseHealth(deps.db)?.explains(error))
      deps.logger.debug({ err: error, route }, "dashboard request refused: the database is unreachable; answered 503");
    else
      deps.logger.warn({ err: error, route }, "dashboard request refused: the database is unreachable; answered 503");
    c.header("Retry-After", "5");
    return c.json({ error: "temporarily unavailable; try again" }, 503);
  }
}

/** The dashboard as every request of this user in flight now is answered (the signer's name aside). */
async function dashboardAnswer(deps: MiniAppDeps, signer: InitDataSigner) {
  const account = await signerAccount(deps, signer);
  const base = {
    lang: account.lang,
    key: { state: account.keyState, last4: account.last4 },
    bot: deps.bot.botInfo.username,
  };
  if (!account.client) return { ...base, sections: null };
  const [{ sections, keyLost }, autoBuys] = await Promise.all([
    readDashboard(account.client, { tr: account.tr, lang: account.lang, botUsername: deps.bot.botInfo.username }),
    readAutoBuys(deps, account),
  ]);
  if ("items" in sections.rules)
    deps.bounds.rememberRules(
      signer.telegramId,
      sections.rules.items.map((rule) => rule.id),
      deps.now(),
    );
  if (keyLost && (await markKeyBroken(deps.db, signer.telegramId, deps.now())))
    deps.logger.info(
      { userId: signer.telegramId },
      "dashboard: the marketplace refused the API key; it is marked broken and alerts pause until the user links a new one",
    );
  return { ...base, sections: { ...sections, autoBuys } };
}

/** The signer's rules as the dashboard lists them (null without a usable key), for the page to follow. */
async function rulesAnswer(deps: MiniAppDeps, signer: InitDataSigner) {
  const account = await signerAccount(deps, signer);
  if (!account.client) return { key: { state: account.keyState }, rules: null };
  const { rules, keyLost } = await readRules(account.client, {
    tr: account.tr,
    lang: account.lang,
    botUsername: deps.bot.botInfo.username,
  });
  if ("items" in rules)
    deps.bounds.rememberRules(
      signer.telegramId,
      rules.items.map((rule) => rule.id),
      deps.now(),
    );
  if (keyLost && (await markKeyBroken(deps.db, signer.telegramId, deps.now())))
    deps.logger.info(
      { userId: signer.telegramId },
      "dashboard: the marketplace refused the API key; it is marked broken and alerts pause until the user links a new one",
    );
  return { key: { state: keyLost ? "broken" : account.keyState }, rules };
}
