import type { AutomationOptions, MarketplaceClient, OrderOptions } from "#src/marketplace/index";

/**
 * Bounds and durations always come from the marketplace's options endpoints (they change over
 * time); they are cached briefly per API-key holder to keep guided flows snappy. Expired entries
 * are swept out as new ones are stored, so the cache holds only the users of the last minute or
 * two, however many have ever asked.
 */
export class OptionsCache {
  private readonly orders = new Map<number, { at: number; value: OrderOptions }>();
  private readonly automations = new Map<number, { at: number; value: AutomationOptions }>();
  private sweptAt = -Infinity;

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = 60_000,
  ) {}

  async orderOptions(userId: number, client: MarketplaceClient): Promise<OrderOptions> {
    const cached = this.orders.get(userId);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.value;
    const value = await client.orderOptions();
    this.orders.set(userId, { at: this.now(), value });
    this.sweep();
    return value;
  }

  async automationOptions(userId: number, client: MarketplaceClient): Promise<AutomationOptions> {
    const cached = this.automations.get(userId);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.value;
    const value = await client.automationOptions();
    this.automations.set(userId, { at: this.now(), value });
    this.sweep();
    return value;
  }

  /** Entries held now, expired or not (for tests and metrics). */
  get size(): number {
    return this.orders.size + this.automations.size;
  }

  /** Drops expired entries, at most once per time-to-live: each pass is paid for by that many stores. */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < this.ttlMs) return;
    this.sweptAt = now;
    for (const map of [this.orders, this.automations])
      for (const [userId, entry] of map) if (now - entry.at >= this.ttlMs) map.delete(userId);
  }

  forget(userId: number): void {
    this.orders.delete(userId);
    this.automations.delete(userId);
  }
}
