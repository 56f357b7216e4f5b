import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";

/**
 * `npm run sandbox` exactly as a person runs it (npm → tsx → node), in its own process group so
 * the whole chain can be stopped together, as Ctrl-C in a terminal would.
 */
function runSandboxScript(env: Record<string, string>) {
  const child = spawn("npm", ["run", "sandbox"], {
    env: { ...process.env, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    exited,
    out: () => stdout,
    err: () => stderr,
    stop: () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // The group is already gone.
      }
    },
  };
}

/** The value of a `NAME=value` line, once printed. */
async function printed(proc: ReturnType<typeof runSandboxScript>, name: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = new RegExp(`^${name}=(.+)$`, "m").exec(proc.out())?.[1];
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`npm run sandbox printed no ${name} line. stdout: ${proc.out()} stderr: ${proc.err()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("npm run sandbox (standalone)", () => {
  it("prints MARKETPLACE_URL and DEMO_API_KEY, serves the public quote without a key and the wallet with it, and stops on SIGTERM", async () => {
    const proc = runSandboxScript({ SANDBOX_PORT: "0" });
    try {
      const url = await printed(proc, "MARKETPLACE_URL");
      const key = await printed(proc, "DEMO_API_KEY");
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Number(new URL(url).port)).toBeGreaterThan(0);
      expect(key).toMatch(/^sk_sandbox_[0-9A-Za-z]{32}$/);

      const quote = await fetch(`${url}/api/v1/pricing/quote?resource=energy&duration=1h&volume=65000`);
      expect(quote.status).toBe(200);
      expect(await quote.json()).toEqual({ priceTrx: expect.stringMatching(/^\d+(\.\d+)?$/) });

      const unkeyed = await fetch(`${url}/api/v1/wallet/balance`);
      expect(unkeyed.status).toBe(401);
      const balance = await fetch(`${url}/api/v1/wallet/balance`, { headers: { "X-Api-Key": key } });
      expect(balance.status).toBe(200);
      expect(await balance.json()).toEqual({ usdtTrc20: "50", trx: "1000" });
    } finally {
      proc.stop();
    }
    await proc.exited;
    expect(proc.out()).toContain("Received SIGTERM; stopping the sandbox.");
  }, 60_000);

  it("takes an empty SANDBOX_PORT as the default 8090, not as a random port", async () => {
    // Hold 8090 (or find it held by someone else): a sandbox that tries 8090 must then fail to
    // listen, naming the port, while one that took "" as port 0 would start on a random port.
    const holder = await hold(8090);
    const proc = runSandboxScript({ SANDBOX_PORT: "" });
    try {
      // Fails fast (instead of timing out) when the sandbox starts anyway.
      const started = printed(proc, "MARKETPLACE_URL").then(
        (url) => ({ startedOn: url }),
        () => ({ startedOn: null }),
      );
      const outcome = await Promise.race([proc.exited, started]);
      expect(outcome).not.toHaveProperty("startedOn");
      expect((outcome as { code: number | null }).code).not.toBe(0);
      expect(proc.err()).toContain("port 8090 on 127.0.0.1 is already in use");
      expect(proc.err()).not.toMatch(/\bat .*\.(ts|js):\d+/);
    } finally {
      proc.stop();
      holder?.close();
    }
  }, 60_000);

  it.each(["http", "80a", "-1", "65536", "0x1f90"])(
    "refuses SANDBOX_PORT=%s with one clear line and a non-zero exit",
    async (value) => {
      const proc = runSandboxScript({ SANDBOX_PORT: value });
      const { code } = await proc.exited;
      expect(code).not.toBe(0);
      expect(proc.out()).not.toMatch(/^MARKETPLACE_URL=/m);
      const lines = proc
        .err()
        .split("\n")
        .filter((line) => line.includes("SANDBOX_PORT"));
      expect(lines).toEqual([
        `SANDBOX_PORT must be a port number (0-65535; empty or unset means 8090), got ${JSON.stringify(value)}`,
      ]);
      expect(proc.err()).not.toMatch(/\bat .*\.(ts|js):\d+/);
    },
    60_000,
  );
});

/** Listens on 127.0.0.1:port; null when someone else already does (the port is held either way). */
function hold(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
