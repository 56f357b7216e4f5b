/**
 * The users table, as the rest of the program reads and writes it: the row (user-row.ts), the
 * update's first read (user-state.ts) and the user's settings (user-settings.ts).
 */
export { upsertUser, findUser, markUserInactive, type User } from "./user-row";
export { findUserWithState, countedReadStatements, type UserWithState } from "./user-state";
export {
  setTelegramLanguage,
  setUserLanguage,
  alertEnabled,
  toggleAlert,
  setDigestPreference,
  usersDueForDigest,
  markDigestWeek,
  type AlertKind,
} from "./user-settings";
