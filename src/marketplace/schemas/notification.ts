import { z } from "zod";
import { pagedSchema } from "./paged";
import type { Paged } from "./paged";
import { dateTimeSchema, idSchema, int32Schema } from "./scalars";

/** A platform notification; `type` and `level` are open strings. */
export const notificationSchema = z.object({
  id: idSchema,
  type: z.string(),
  level: z.string(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  read: z.boolean(),
  createdAt: dateTimeSchema,
});
export type Notification = z.output<typeof notificationSchema>;

/** A page of notifications (fixed size 20) with the account's unread count. */
export const notificationPageSchema = pagedSchema(notificationSchema).extend({ unread: int32Schema });
export type NotificationPage = Paged<Notification> & { unread: number };
