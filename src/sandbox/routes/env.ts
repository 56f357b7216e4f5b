import type { AccountRecord, ApiKeyRecord } from "../records";

/** What the API middleware puts on the Hono context once the X-Api-Key is known. */
export interface ApiEnv {
  Variables: { key: ApiKeyRecord; account: AccountRecord };
}
