import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfig } from "#src/config";
import { trustedProxies } from "#src/trusted-proxies";

const compose = readFileSync(new URL("../../compose.yaml", import.meta.url), "utf8");
const field = (name: string) => {
  const values = [...compose.matchAll(new RegExp(`^\\s*-?\\s*${name}:\\s*(\\S+)\\s*$`, "gm"))].map(
    (match) => match[1]!,
  );
  expect(values, name).toHaveLength(1);
  return values[0]!;
};

/**
 * compose.yaml trusts its load balancer's X-Forwarded-For, and only its: the balancer's fixed
 * address is listed, lies on the network's subnet, and outside the range Docker hands to the other
 * containers (so no replica, database or scraper can hold it).
 */
describe("compose.yaml's TRUSTED_PROXIES", () => {
  it("is a valid setting naming the balancer's fixed address, which no other container can be given", () => {
    const setting = field("TRUSTED_PROXIES");
    const parsed = parseConfig({ TRUSTED_PROXIES: setting });
    expect(parsed.ok).toBe(true);
    const balancer = field("ipv4_address");
    expect(trustedProxies(parsed.ok ? parsed.config.TRUSTED_PROXIES : []).trusts(balancer)).toBe(true);
    expect(trustedProxies([field("subnet")]).trusts(balancer)).toBe(true);
    const handedOut = trustedProxies([field("ip_range")]);
    expect(handedOut.trusts(balancer)).toBe(false);
    // Nothing Docker may hand out is trusted.
    for (let last = 128; last < 255; last++) expect(trustedProxies([setting]).trusts(`172.28.0.${last}`)).toBe(false);
  });
});
