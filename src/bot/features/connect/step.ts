import type { FlowState } from "#src/db/repos/flows";

/** How long "send me your key" stays open: text typed much later is not a key meant for us. */
export const KEY_STEP_TTL_MS = 10 * 60_000;

/** True while the guided /connect waits for a key; a step without its start time counts as expired. */
export function keyStepOpen(state: FlowState | null, now: number): boolean {
  if (state?.flow !== "connect" || state.step !== "key") return false;
  const askedAt = state.data.askedAt;
  return typeof askedAt === "number" && now - askedAt >= 0 && now - askedAt < KEY_STEP_TTL_MS;
}
