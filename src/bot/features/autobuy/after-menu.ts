import type { Context, NextFunction } from "grammy";

/**
 * Menus run before the guided flows in the chain, so a menu's button cannot enter a flow itself
 * (the context has no flows yet). Make it auto-buy on a watch's card hands /autobuy's arguments
 * on with the update instead: the auto-buy feature, further down the chain, starts /autobuy with them.
 */
const handedOn = new WeakMap<Context, string>();

export function autoBuyAfterMenu(ctx: Context, args: string, next: NextFunction): Promise<void> {
  handedOn.set(ctx, args);
  return next();
}

/** The arguments a menu handed on with this update, once (undefined when none). */
export function takeAutoBuyArgs(ctx: Context): string | undefined {
  const args = handedOn.get(ctx);
  handedOn.delete(ctx);
  return args;
}
