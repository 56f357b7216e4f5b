import { type Composer, InlineKeyboard } from "grammy";
import { FlatComposer } from "#src/bot/middleware/flat-composer";
import { MAIN_MENU } from "#src/chat/callback-data";
import type { BotContext, MenuActions } from "#src/bot/context";
import { endFlow, withFlowEnded } from "#src/bot/flows";
import { truncate } from "#src/chat/html";
import { openStartLink } from "../deep-links";
import { accountCredential } from "#src/bot/prefetched";
import { buttonValues } from "#src/bot/pressed-button";
import { dashboardButton } from "../dashboard";

export const COMMANDS = [
  "start",
  "help",
  "connect",
  "disconnect",
  "quote",
  "buy",
  "watch",
  "watches",
  "autobuy",
  "autobuys",
  "orders",
  "addresses",
  "rules",
  "refill",
  "renewal",
  "smart",
  "newrule",
  "wallet",
  "topup",
  "transactions",
  "stats",
  "dashboard",
  "notifications",
  "webhook",
  "settings",
  "group",
  "cancel",
] as const;

/** The main menus built so far, by language and linking state: their words never change while the bot runs. */
const mainMenus = new Map<string, InlineKeyboard>();

/** Every area of the bot, each opened as its command opens it; Connect while no key is linked. */
function mainMenu(ctx: BotContext, linked: boolean): InlineKeyboard {
  const key = `${ctx.lang}:${linked}:${dashboardButton(ctx)?.url ?? ""}`;
  let menu = mainMenus.get(key);
  if (!menu) {
    menu = buildMainMenu(ctx, linked);
    mainMenus.set(key, menu);
  }
  return menu;
}

function buildMainMenu(ctx: BotContext, linked: boolean): InlineKeyboard {
  const keyboard = new InlineKeyboard()
    .text(ctx.tr("menu-quote"), MAIN_MENU.data("quote"))
    .text(ctx.tr("menu-buy"), MAIN_MENU.data("buy"))
    .row()
    .text(ctx.tr("menu-orders"), MAIN_MENU.data("orders"))
    .text(ctx.tr("menu-rules"), MAIN_MENU.data("rules"))
    .row()
    .text(ctx.tr("menu-wallet"), MAIN_MENU.data("wallet"))
    .text(ctx.tr("button-topup"), MAIN_MENU.data("topup"))
    .row()
    .text(ctx.tr("menu-watches"), MAIN_MENU.data("watches"))
    .text(ctx.tr("menu-stats"), MAIN_MENU.data("stats"))
    .row()
    .text(ctx.tr("menu-notifications"), MAIN_MENU.data("notifications"))
    .text(ctx.tr("menu-settings"), MAIN_MENU.data("settings"))
    .row()
    .text(ctx.tr("menu-webhook"), MAIN_MENU.data("webhook"));
  if (!linked) keyboard.text(ctx.tr("button-connect"), MAIN_MENU.data("connect"));
  // The dashboard Mini App, when Telegram can open it (an https PUBLIC_URL).
  const dashboard = dashboardButton(ctx);
  return dashboard ? keyboard.row().webApp(dashboard.text, dashboard.url) : keyboard;
}

export function startFeature(menu: MenuActions): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();

  composer.command("start", async (ctx) => {
    // A deep link (t.me/<bot>?start=<payload>) opens its command; a bad one is said, then the plain /start.
    if (ctx.match && (await openStartLink(ctx, ctx.match, menu))) return;
    await endFlow(ctx);
    const credential = await accountCredential(ctx);
    const linked = credential
      ? credential.broken_at
        ? ctx.tr("start-linked-broken", { last4: credential.last4 })
        : ctx.tr("start-linked", { last4: credential.last4 })
      : ctx.tr("start-not-linked");
    const lines = [
      ctx.tr("start-welcome", { name: ctx.from?.first_name ?? "" }),
      "",
      ctx.tr("start-language", { language: ctx.tr(`language-${ctx.lang}`) }),
      linked,
    ];
    if (ctx.deps.sandbox) lines.push("", ctx.tr("start-sandbox"));
    await ctx.reply(lines.join("\n"), { parse_mode: "HTML", reply_markup: mainMenu(ctx, credential !== undefined) });
  });

  composer.command("help", async (ctx) => {
    const lines = [ctx.tr("help-title"), ""];
    for (const command of COMMANDS) {
      const example = HELP_EXAMPLES[command];
      // The command stays a tappable command; its example arguments are code, tap to copy.
      const shown =
        example === undefined ? "" : ` <code>${example === "key" ? ctx.tr("help-key-argument") : example}</code>`;
      lines.push(`/${command}${shown} — ${ctx.tr(`command-${command}`)}`);
    }
    lines.push("", ctx.tr("help-arguments"));
    await ctx.reply(lines.join("\n"), { parse_mode: "HTML" });
  });

  composer.command("cancel", async (ctx) => {
    const ended = await endFlow(ctx);
    await ctx.reply(ctx.tr(ended ? "cancel-done" : "cancel-nothing"), { parse_mode: "HTML" });
  });

  composer.callbackQuery(MAIN_MENU.pattern, async (ctx) => {
    const area = buttonValues(ctx, MAIN_MENU);
    const action = menu.find(area);
    if (!action) {
      await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
      return;
    }
    await ctx.answerCallbackQuery();
    await withFlowEnded(ctx, () => action(ctx));
  });

  return composer;
}

/**
 * The shortest useful arguments of each command that takes some, shown in /help (addresses as
 * "T…", where the user puts theirs). Written the same in every language, as commands are typed;
 * "key" stands for the translated placeholder of an API key.
 */
const HELP_EXAMPLES: Partial<Record<(typeof COMMANDS)[number], string>> = {
  connect: "key",
  quote: "energy 65k 1h",
  buy: "energy 65k 1h T…",
  watch: "energy 65k 1h 2.5",
  autobuy: "energy 65k 1h T… 3 10",
  refill: "T… 30k 65k 1h",
  renewal: "T… 65k",
  smart: "T…",
};

/** How many single-letter edits (insert, delete, change, swap of neighbours) turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + change);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The one command a typo is closest to (at most 2 edits, and a single closest), or null. */
export function closestCommand(typed: string): string | null {
  if (typed.length < 3 || typed.length > 32) return null;
  const scored = COMMANDS.map((command) => ({ command, distance: editDistance(typed, command) })).filter(
    (entry) => entry.distance <= 2,
  );
  if (scored.length === 0) return null;
  const best = Math.min(...scored.map((entry) => entry.distance));
  const closest = scored.filter((entry) => entry.distance === best);
  return closest.length === 1 ? closest[0]!.command : null;
}

/** Last in the chain: anything no feature handled gets a helpful answer instead of silence. */
export function unhandledFeature(): Composer<BotContext> {
  const composer = new FlatComposer<BotContext>();
  composer.on("callback_query", async (ctx) => {
    await ctx.answerCallbackQuery({ text: ctx.tr("button-expired") });
  });
  composer.on("message:text", async (ctx) => {
    const text = ctx.message.text;
    if (text.startsWith("/")) {
      const command = text.slice(1).split(/[\s@]/)[0] ?? "";
      // A command closes the open question (its text is never an answer); an unknown one says so too.
      const close = closestCommand(command.toLowerCase());
      const said = [
        ctx.tr("unknown-command", { command: truncate(command, 40) }),
        ...(close ? [ctx.tr("unknown-command-suggest", { command: close })] : []),
      ].join("\n");
      await ctx.reply(ctx.flowLeft ? `${said}\n${ctx.tr("unknown-command-flow-left")}` : said, { parse_mode: "HTML" });
      return;
    }
    await ctx.reply(ctx.tr("unknown-text"), { parse_mode: "HTML" });
  });
  composer.on("message", async (ctx) => {
    await ctx.reply(ctx.tr("unknown-text"), { parse_mode: "HTML" });
  });
  return composer;
}
