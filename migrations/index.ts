import type { Migration } from "kysely";
import { initial } from "./001-initial";
import { scaleOut } from "./002-scale-out";
import { connectAttempts } from "./003-connect-attempts";
import { retention } from "./004-retention";

/** Every migration, in order. Names are permanent once released. */
export const migrations: Record<string, Migration> = {
  "001-initial": initial,
  "002-scale-out": scaleOut,
  "003-connect-attempts": connectAttempts,
  "004-retention": retention,
};
