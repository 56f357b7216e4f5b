import type { AddressInfo } from "node:net";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { serve } from "@hono/node-server";
import type { Sandbox } from "./sandbox";
import { createRestorableSandbox } from "./sandbox/create-sandbox";
import type { OrderEventName, OrderWebhookResult } from "./sandbox/order-webhook";
import { parseSnapshot, type SandboxSnapshot } from "./sandbox/snapshot";

export interface EmbeddedSandbox {
  sandbox: Sandbox;
  url: string;
  demoApiKey: string;
  /** Where its state is kept across restarts (null: in memory only). */
  stateFile: string | null;
  /** True when the state (demo account and key included) came from stateFile. */
  restored: boolean;
  /** Set when stateFile existed but could not be read; the sandbox then started afresh. */
  restoreProblem: string | null;
  /** The sandbox posts order.filled/order.failed for one of its orders to `url` now (one attempt). */
  postOrderWebhook(args: { orderId: string; url: string; event?: OrderEventName }): Promise<OrderWebhookResult>;
  stop(): Promise<void>;
}

const SAVE_EVERY_MS = 1000;

/**
 * The sandbox marketplace in this process, on a loopback port of its own (the bot reaches it over
 * HTTP, as it would the real one). With a stateFile its whole world is saved there (mode 0600,
 * written whole and renamed into place) about once a second when it changed, and at stop, so a
 * restart keeps the demo key a user linked and the orders the bot follows. The file holds sandbox
 * keys only, never a key of the real marketplace.
 */
export async function startEmbeddedSandbox(
  options: { port?: number; stateFile?: string | null } = {},
): Promise<EmbeddedSandbox> {
  const stateFile = options.stateFile ?? null;
  let snapshot: SandboxSnapshot | undefined;
  let restoreProblem: string | null = null;
  if (stateFile && existsSync(stateFile)) {
    try {
      snapshot = parseSnapshot(readFileSync(stateFile, "utf8"));
    } catch (error) {
      restoreProblem = error instanceof Error ? error.message : String(error);
      // Kept beside, not overwritten, so nothing is lost by a bad read.
      renameSync(stateFile, `${stateFile}.unreadable-${Date.now()}`);
    }
  }
  const { sandbox, serialize, postOrderWebhook } = createRestorableSandbox({}, snapshot);

  let lastSaved = snapshot ? serialize() : "";
  const save = () => {
    if (!stateFile) return;
    const text = serialize();
    if (text === lastSaved) return;
    mkdirSync(dirname(stateFile), { recursive: true });
    const temporary = `${stateFile}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, stateFile);
    lastSaved = text;
  };
  save();
  const saveOrReport = () => {
    try {
      save();
    } catch (error) {
      console.error(
        `could not save the sandbox state to ${stateFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const saver = stateFile ? setInterval(saveOrReport, SAVE_EVERY_MS) : null;
  saver?.unref();

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: sandbox.app.fetch, port: options.port ?? 0, hostname: "127.0.0.1" }, () =>
      resolve(started),
    );
  });
  const stopTimers = sandbox.startTimers(1000);
  const { port } = server.address() as AddressInfo;
  return {
    sandbox,
    url: `http://127.0.0.1:${port}`,
    demoApiKey: sandbox.demo.apiKey,
    stateFile,
    restored: snapshot !== undefined,
    restoreProblem,
    postOrderWebhook,
    stop: () =>
      new Promise<void>((resolve) => {
        stopTimers();
        if (saver) clearInterval(saver);
        server.close(() => {
          saveOrReport();
          resolve();
        });
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
