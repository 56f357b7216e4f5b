import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

describe("npm run sandbox (standalone)", () => {
  it("prints MARKETPLACE_URL and DEMO_API_KEY, serves the API and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/sandbox/standalone.ts"], {
      env: { ...process.env, SANDBOX_PORT: "0", HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const found: Record<string, string> = {};
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("standalone sandbox printed no URL/key within 20s")), 20_000);
      lines.on("line", (line) => {
        const match = /^(MARKETPLACE_URL|DEMO_API_KEY)=(.+)$/.exec(line);
        if (match) found[match[1]!] = match[2]!;
        if (found.MARKETPLACE_URL && found.DEMO_API_KEY) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      expect(found.MARKETPLACE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(found.DEMO_API_KEY).toMatch(/^sk_sandbox_[0-9A-Za-z]{32}$/);
      const response = await fetch(`${found.MARKETPLACE_URL}/api/v1/wallet/balance`, { headers: { "X-Api-Key": found.DEMO_API_KEY! } });
      expect(await response.json()).toEqual({ usdtTrc20: "50", trx: "1000" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
