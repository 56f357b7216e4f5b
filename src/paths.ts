import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project's root folder (the one holding package.json), found upwards from this module, so
 * the files read at run time (locales, the playground's page) are found both when the code runs
 * from src/ and from the bundle `npm start` builds into dist/.
 */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("package.json not found above the running code");
    dir = up;
  }
  return dir;
}
