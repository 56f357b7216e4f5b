/** /api/v1/notifications: a fixed page size of 20, newest first, with read flags. Read scope suffices to mark them read. */
import type { Hono } from "hono";
import { notFound } from "../problem";
import type { World } from "../records";
import { notificationView } from "../views";
import { newestFirst, notificationsOf } from "../world";
import { requireScope } from "./auth";
import type { ApiEnv } from "./env";
import { pageOf, paging, pathUuid } from "./request-parsing";

const NOTIFICATION_PAGE_SIZE = 20;

export function registerNotificationRoutes(app: Hono<ApiEnv>, world: World): void {
  const mine = (accountId: string) => notificationsOf(world, accountId);

  app.get("/api/v1/notifications", requireScope("read"), (c) => {
    const { page, pageSize } = paging(c, NOTIFICATION_PAGE_SIZE);
    const all = newestFirst(mine(c.get("account").id));
    return c.json({
      items: pageOf(all, page, pageSize).map(notificationView),
      page,
      pageSize,
      total: all.length,
      unread: all.filter((notification) => !notification.read).length,
    });
  });

  app.post("/api/v1/notifications/read-all", requireScope("read"), (c) => {
    for (const notification of mine(c.get("account").id)) notification.read = true;
    return c.body(null, 204);
  });

  app.post("/api/v1/notifications/:id/read", requireScope("read"), (c) => {
    const id = pathUuid(c, "notification");
    const notification = mine(c.get("account").id).find((candidate) => candidate.id === id);
    if (!notification) throw notFound("notification", id);
    notification.read = true;
    return c.body(null, 204);
  });
}
