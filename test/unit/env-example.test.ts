import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configSchema, parseConfig } from "#src/config";

/** .env.example lists every variable the configuration reads, each once, with a default that parses. */
describe(".env.example", () => {
  const text = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
  const entries = [...text.matchAll(/^# ([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((match) => ({
    name: match[1]!,
    value: match[2]!,
  }));

  it("names every variable of the configuration exactly once, and no other", () => {
    const names = entries.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it("gives each variable a line that says what it does", () => {
    const lines = text.split("\n");
    for (const { name } of entries) {
      const at = lines.findIndex((line) => line.startsWith(`# ${name}=`));
      let above = at - 1;
      while (above >= 0 && /^# [A-Z][A-Z0-9_]+=/.test(lines[above]!)) above -= 1;
      expect(lines[above], name).toMatch(/^# [A-Za-z/].{10,}/);
    }
  });

  it("writes defaults the configuration accepts and reads as its own defaults", () => {
    const written = Object.fromEntries(
      entries.filter((entry) => entry.value !== "").map((entry) => [entry.name, entry.value]),
    );
    const withDefaults = parseConfig(written);
    const bare = parseConfig({});
    expect(withDefaults.ok && bare.ok).toBe(true);
    if (!withDefaults.ok || !bare.ok) return;
    expect(withDefaults.config).toEqual(bare.config);
  });
});
