import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { kindFor } from "#src/marketplace/index";
import { looksLikeAddress } from "#src/input/address";
import { offeredAddress, readLabel } from "#src/bot/features/addresses/index";
import { createSandbox } from "#src/sandbox/index";
import { createSandboxPanel, PanelError } from "#src/playground/sandbox-panel";
import { createFakeTelegram } from "#src/telegram-fake/index";
import type { EmbeddedSandbox } from "#src/embedded-sandbox";

const PROTOTYPE_NAMES = [
  "toString",
  "constructor",
  "__proto__",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "isPrototypeOf",
  "__defineGetter__",
];

describe("lookups keyed by outside input find only their own entries", () => {
  it("an error code named like a built-in decides nothing: the HTTP status does", () => {
    for (const code of PROTOTYPE_NAMES) {
      expect(kindFor(402, code)).toBe("insufficient_balance");
      expect(kindFor(400, code)).toBe("bad_request");
      expect(kindFor(503, code)).toBe("server");
    }
    expect(kindFor(400, "wallet.insufficient_balance")).toBe("insufficient_balance");
  });

  it("an address button's answer finds a saved address only by its own reference", () => {
    const offered = { abc123: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" };
    expect(offeredAddress(offered, "@abc123")).toBe("TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    for (const name of PROTOTYPE_NAMES) {
      expect(offeredAddress(offered, `@${name}`)).toBeUndefined();
      expect(offeredAddress({}, `@${name}`)).toBeUndefined();
      expect(offeredAddress(undefined, `@${name}`)).toBeUndefined();
      expect(offeredAddress(offered, name)).toBeUndefined();
    }
    // A stored draft is JSON: an own "__proto__" key read back from it is still only a string lookup.
    const parsed = JSON.parse('{"__proto__":"TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL","toString":{"x":1}}') as Record<
      string,
      string
    >;
    expect(offeredAddress(parsed, "@__proto__")).toBe("TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL");
    expect(offeredAddress(parsed, "@toString")).toBeUndefined();
  });

  it("offeredAddress and looksLikeAddress never throw and never return a non-string (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...PROTOTYPE_NAMES.flatMap((name) => [name, `@${name}`])),
          fc.string({ unit: "grapheme" }),
        ),
        (input) => {
          const found = offeredAddress({ ref: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL" }, input);
          expect(found === undefined || typeof found === "string").toBe(true);
          expect(typeof looksLikeAddress(input)).toBe("boolean");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("labels: direction overrides are dropped, and a label with nothing visible is refused", () => {
    expect(readLabel("\u202Egnirps\u202C")).toEqual({ ok: true, label: "gnirps" });
    expect(readLabel("Kasse \u2067Nord\u2069")).toEqual({ ok: true, label: "Kasse Nord" });
    expect(readLabel("\u200B\u200C\u200D\u2060\uFEFF")).toEqual({ ok: false });
    expect(readLabel(" \u202E ")).toEqual({ ok: false });
    expect(readLabel("   ")).toEqual({ ok: false });
    expect(readLabel("<b>&</b>")).toEqual({ ok: true, label: "<b>&</b>" });
    expect(readLabel("👨‍👩‍👧 family")).toEqual({ ok: true, label: "👨‍👩‍👧 family" });
    expect(readLabel("x".repeat(4096))).toEqual({ ok: false });
  });

  it("the sandbox refuses a preview type named like a built-in with a 400, not a crash", async () => {
    const sandbox = createSandbox();
    for (const type of PROTOTYPE_NAMES) {
      const response = await sandbox.app.request(
        `/api/v1/automations/preview?type=${encodeURIComponent(type)}&volume=65000&duration=1h`,
        { headers: { "X-Api-Key": sandbox.demo.apiKey } },
      );
      expect(response.status, type).toBe(400);
    }
  });

  it("the playground's sandbox panel knows no action named like a built-in", async () => {
    const sandbox = createSandbox();
    const embedded = {
      sandbox,
      url: "http://127.0.0.1:1",
      demoApiKey: sandbox.demo.apiKey,
      stateFile: null,
      restored: false,
      restoreProblem: null,
    } as unknown as EmbeddedSandbox;
    const panel = createSandboxPanel(embedded, createFakeTelegram({ token: "123:TEST" }), () => ({}));
    for (const action of PROTOTYPE_NAMES) {
      expect(panel.has(action)).toBe(false);
      const failure = await panel.run(action, {}).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure, action).toBeInstanceOf(PanelError);
      expect((failure as PanelError).status).toBe(404);
    }
  });
});
