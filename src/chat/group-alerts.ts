import { InlineKeyboard } from "grammy";
import type { OutboxPayload } from "#src/db/repos/outbox";
import { GROUP_RULE, RULE_RESUME } from "./callback-data";
import type { Translate } from "./i18n";

// Team alerts: what a copy of a private alert looks like in a group.

type Button = { text: string; callback_data?: string; [field: string]: unknown };

/**
 * The group's copy of a private alert: the owner named first (escaped), and only the buttons that
 * never spend. Resume under a paused rule becomes the group's Resume, which acts for the owner
 * alone; every other button (Top up, Buy now, Buy again and any added later) is left out, so a
 * spending button can never reach a group by being forgotten here.
 */
export function groupCopy(payload: OutboxPayload, ownerName: string, tr: Translate): OutboxPayload {
  const params = payload.params;
  const owner = tr("group-alert-owner", { name: ownerName });
  const field = typeof params.text === "string" ? "text" : typeof params.caption === "string" ? "caption" : null;
  const copied: Record<string, unknown> = { ...params };
  if (field) copied[field] = `${owner}\n${String(params[field])}`;
  delete copied.reply_markup;
  const keyboard = groupKeyboard(params.reply_markup, tr);
  if (keyboard) copied.reply_markup = keyboard;
  return { method: payload.method, params: copied };
}

/** The buttons a group keeps (see groupCopy); null when none is left. */
function groupKeyboard(markup: unknown, tr: Translate): InlineKeyboard | null {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return null;
  const keyboard = new InlineKeyboard();
  let kept = 0;
  for (const row of rows as Button[][]) {
    for (const button of Array.isArray(row) ? row : []) {
      const ref = typeof button.callback_data === "string" ? RULE_RESUME.parse(button.callback_data) : null;
      if (ref === null) continue;
      keyboard.text(tr("button-resume"), GROUP_RULE.data("resume", ref));
      kept += 1;
    }
  }
  return kept > 0 ? keyboard : null;
}

/** The group alert's button after the owner acted: Pause on a running rule, Resume on a paused one. */
export function groupRuleButton(tr: Translate, ref: string, running: boolean): InlineKeyboard {
  return running
    ? new InlineKeyboard().text(tr("button-pause"), GROUP_RULE.data("pause", ref))
    : new InlineKeyboard().text(tr("button-resume"), GROUP_RULE.data("resume", ref));
}
