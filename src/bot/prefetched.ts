import { findCredential, type Credential } from "#src/db/repos/credentials";
import type { StoredConversation } from "#src/db/repos/conversations";
import type { StoredFlow } from "#src/db/repos/flows";
import type { UserWithState } from "#src/db/repos/users";
import type { BotContext } from "./context";

/**
 * What loadAccount read with the user's row at the start of an update (findUserWithState), so the
 * update's first reader of each takes it instead of asking the database again. Each is taken once:
 * a later read in the same update goes to the database, and so sees what the update wrote since.
 * A write that may come before the first read drops the prefetched value (forgetPrefetched).
 * Per update and per chat: updates of one chat are handled one at a time.
 */
interface Prefetched {
  credential?: Credential | null;
  conversation?: StoredConversation | null;
  /** The user's row in `flows`: the key step, or a guided flow's first question (see flows.ts). */
  step?: StoredFlow | null;
  /** The update's place in the user's flood-limit window, counted by the read (PostgreSQL). */
  windowPlace?: number;
}

const prefetched = new WeakMap<BotContext, Prefetched>();

export function rememberPrefetched(ctx: BotContext, state: UserWithState): void {
  // A user not stored yet has no key and no key step (the read finds neither); their chat's flow is
  // read all the same (its row is keyed by the chat and may outlive a user's data).
  const entry: Prefetched = { credential: state.credential, conversation: state.conversation, step: state.step };
  if (state.windowPlace !== null) entry.windowPlace = state.windowPlace;
  prefetched.set(ctx, entry);
}

/** The prefetched value, taken (undefined when none was read or it was taken already). */
export function takePrefetched<K extends keyof Prefetched>(ctx: BotContext, key: K): Prefetched[K] | undefined {
  const entry = prefetched.get(ctx);
  if (!entry || !(key in entry)) return undefined;
  const value = entry[key];
  delete entry[key];
  return value;
}

/** The update wrote what was prefetched (or may have): the next read asks the database. */
export function forgetPrefetched(ctx: BotContext, key: keyof Prefetched): void {
  const entry = prefetched.get(ctx);
  if (entry) delete entry[key];
}

/** The user's stored key: the one read with their row when this update has not taken it yet. */
export async function accountCredential(ctx: BotContext): Promise<Credential | undefined> {
  const known = takePrefetched(ctx, "credential");
  if (known !== undefined) return known ?? undefined;
  return findCredential(ctx.deps.db, ctx.account.telegram_id);
}
