import type { Migration } from "kysely";
import { initial } from "./001-initial";
import { scaleOut } from "./002-scale-out";
import { connectAttempts } from "./003-connect-attempts";
import { retention } from "./004-retention";
import { weeklyDigest } from "./006-weekly-digest";
import { conversations } from "./007-conversations";
import { priceWatches } from "./008-price-watches";
import { pollSchedule } from "./009-poll-schedule";
import { commandMenu } from "./010-command-menu";
import { telegramLanguage } from "./011-telegram-language";
import { groupLinks } from "./012-group-links";
import { openRuleCards } from "./013-open-rule-cards";
import { autoBuys } from "./014-auto-buys";
import { spendGuardAndReminders } from "./015-spend-guard-and-reminders";

/**
 * Every migration, in order. Names are permanent once released. There is no 005 and never was; it
 * stays a gap, since a migration sorting before ones already run stops Kysely's migrator
 * (docs/architecture.md, "Where a new thing goes").
 */
export const migrations: Record<string, Migration> = {
  "001-initial": initial,
  "002-scale-out": scaleOut,
  "003-connect-attempts": connectAttempts,
  "004-retention": retention,
  "006-weekly-digest": weeklyDigest,
  "007-conversations": conversations,
  "008-price-watches": priceWatches,
  "009-poll-schedule": pollSchedule,
  "010-command-menu": commandMenu,
  "011-telegram-language": telegramLanguage,
  "012-group-links": groupLinks,
  "013-open-rule-cards": openRuleCards,
  "014-auto-buys": autoBuys,
  "015-spend-guard-and-reminders": spendGuardAndReminders,
};
