import { rmSync } from "node:fs";

/**
 * Removes a temporary folder that held a SQLite database. The checkpoint worker closes its own
 * connection on its thread after the database is destroyed and may still create or delete WAL
 * files for a moment, so removal is retried; a folder left in the temp directory after that
 * harms nothing and must not fail a test.
 */
export async function removeDatabaseDir(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
