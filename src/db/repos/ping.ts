import { sql, type Kysely } from "kysely";
import type { Database } from "#src/db/schema";

/** The cheapest statement the database answers: resolves when it is reachable, throws when it is not (readiness). */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
