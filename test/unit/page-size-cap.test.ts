import { describe, expect, it } from "vitest";
import { createMarketplaceClient } from "#src/marketplace/index";
import { createFakeFetch, json } from "../marketplace/fake-fetch";

const EMPTY_PAGE = { items: [], page: 1, pageSize: 100, total: 0 };

function client() {
  const fake = createFakeFetch(() => json(EMPTY_PAGE));
  const marketplace = createMarketplaceClient({
    baseUrl: "https://market.example",
    apiKey: () => "mk_test_key_0000",
    fetch: fake.fetch,
    sleep: async () => undefined,
  });
  const sentPageSizes = () => fake.requests.map((request) => new URL(request.url).searchParams.get("pageSize"));
  return { marketplace, sentPageSizes };
}

describe("the client's list calls never ask for more than the spec's 100 per page", () => {
  it("sends pageSize 100 for the order list when the caller asks for more", async () => {
    const { marketplace, sentPageSizes } = client();
    await marketplace.listOrders({ page: 1, pageSize: 101 });
    await marketplace.listOrders({ pageSize: 5000 });
    expect(sentPageSizes()).toEqual(["100", "100"]);
  });

  it("sends pageSize 100 for the ledger when the caller asks for more, keeping the filters", async () => {
    const { marketplace, sentPageSizes } = client();
    await marketplace.transactions({ pageSize: 1_000_000, currency: "TRX" });
    expect(sentPageSizes()).toEqual(["100"]);
  });

  it("passes sizes within the limit unchanged and leaves an absent one absent", async () => {
    const { marketplace, sentPageSizes } = client();
    await marketplace.listOrders({ pageSize: 100 });
    await marketplace.transactions({ pageSize: 7 });
    await marketplace.listOrders();
    expect(sentPageSizes()).toEqual(["100", "7", null]);
  });

  it("still refuses a size that is not a positive integer, before any request", async () => {
    const { marketplace, sentPageSizes } = client();
    await expect(marketplace.listOrders({ pageSize: 0 })).rejects.toThrow(RangeError);
    await expect(marketplace.transactions({ pageSize: 150.5 })).rejects.toThrow(RangeError);
    expect(sentPageSizes()).toEqual([]);
  });
});
