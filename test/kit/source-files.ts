import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every TypeScript file below `dir`, for tests that read the source (its shape, limits and flows). */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}
