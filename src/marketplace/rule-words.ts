/** The marketplace's words for a rule's kind and state, read loosely (the spec leaves the literals open). */

export type RuleKind = "refill" | "renewal" | "smart";
export type RuleStatus = "active" | "paused" | "cancelled" | "other";

/** The spec leaves the literals open (the sandbox says auto-refill, auto-renewal, smart); read them loosely. */
export function ruleKind(type: string): RuleKind | null {
  const text = type.toLowerCase();
  if (text.includes("refill")) return "refill";
  if (text.includes("renew")) return "renewal";
  if (text.includes("smart")) return "smart";
  return null;
}

export function ruleStatus(status: string): RuleStatus {
  const text = status.toLowerCase();
  if (text === "active") return "active";
  if (text === "paused") return "paused";
  if (text === "cancelled" || text === "canceled") return "cancelled";
  return "other";
}
