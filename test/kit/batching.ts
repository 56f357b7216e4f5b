import { expect } from "vitest";
import type { BatcherCounts } from "#src/db/statement-batcher";
import type { TEST_DIALECTS } from "./test-database";

/**
 * That `calls` concurrent calls of a batched statement shared statements on PostgreSQL (at least
 * one batch, none failed, fewer than half as many statements as calls since `before`), and that
 * SQLite batched nothing (no counts).
 */
export function expectSharedStatements(
  dialect: (typeof TEST_DIALECTS)[number],
  counts: Readonly<BatcherCounts> | null | undefined,
  calls: number,
  before = 0,
): void {
  if (dialect === "SQLite") {
    expect(counts ?? null).toBeNull();
    return;
  }
  expect(counts!.batches).toBeGreaterThan(0);
  expect(counts!.failedBatches).toBe(0);
  expect(counts!.statements - before).toBeLessThan(calls / 2);
}
