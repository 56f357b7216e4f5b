import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Without SECRET_KEY the bot generates one into the data folder (mode 0600) and reuses it on the
 * next start. Losing that file means every linked key must be linked again, hence the warning.
 */
export function loadOrCreateSecretKey(dataDir: string): { key: string; created: boolean; path: string } {
  const path = join(dataDir, "secret.key");
  if (existsSync(path)) {
    const key = readFileSync(path, "utf8").trim();
    if (Buffer.from(key, "base64").length === 32) return { key, created: false, path };
    throw new Error(`${path}: does not hold a 32-byte base64 key; delete it or set SECRET_KEY`);
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString("base64");
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return { key, created: true, path };
}
