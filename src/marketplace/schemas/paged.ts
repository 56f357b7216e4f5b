import { z } from "zod";
import { int32Schema } from "./scalars";

/** One page of a list: orders and ledger entries (and, with `unread`, notifications). */
export interface Paged<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
}

/** Builds the schema of a paged list of `item`. */
export function pagedSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: int32Schema,
    pageSize: int32Schema,
    total: int32Schema,
  });
}
