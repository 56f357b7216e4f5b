import type { AutomationOptions, MarketplaceClient, OrderOptions } from "../marketplace";

/**
 * Bounds and durations always come from the marketplace's options endpoints (they change over
 * time); they are cached briefly per API-key holder to keep guided flows snappy.
 */
export class OptionsCache {
  private readonly orders = new Map<number, { at: number; value: OrderOptions }>();
  private readonly automations = new Map<number, { at: number; value: AutomationOptions }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = 60_000,
  ) {}

  async orderOptions(userId: number, client: MarketplaceClient): Promise<OrderOptions> {
    const cached = this.orders.get(userId);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.value;
    const value = await client.orderOptions();
    this.orders.set(userId, { at: this.now(), value });
    return value;
  }

  async automationOptions(userId: number, client: MarketplaceClient): Promise<AutomationOptions> {
    const cached = this.automations.get(userId);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.value;
    const value = await client.automationOptions();
    this.automations.set(userId, { at: this.now(), value });
    return value;
  }

  forget(userId: number): void {
    this.orders.delete(userId);
    this.automations.delete(userId);
  }
}
