import { Composer, type Context, type Middleware, type MiddlewareFn } from "grammy";

type MaybePromise<T> = T | Promise<T>;

/**
 * A grammY Composer whose middleware runs as a flat list, for the bot's own chain and its features.
 *
 * grammY's Composer folds its middleware into nested async functions (`use` concatenates each one
 * onto all before it, so reaching the first one enters a frame for every one), and every `command`,
 * `on` or `callbackQuery` handler is a `filter`, which grammY runs through `lazy`: an async wrapper
 * that awaits the predicate and builds a new Composer for each update. The bot's chain holds about
 * 30 middleware and its features about 50 handlers, so each update allocated dozens of promises,
 * closures and Composers for the folding alone (the nested frames were a fifth of a guided step's
 * allocations in the bench's heap profile).
 *
 * Here each `use` appends to a list that one function walks, and a `filter` evaluates its
 * predicate in place (awaiting it only when it returns a promise). What runs and in which order is
 * grammY's: each middleware gets `next`, which runs the rest of the list and then the caller's
 * `next`; `use` and `filter` return a grammY Composer that later calls can extend, as theirs do.
 * Unlike grammY's, `next` is not guarded against a second call; nothing here calls it twice.
 */
export class FlatComposer<C extends Context> extends Composer<C> {
  private readonly list: MiddlewareFn<C>[] = [];
  private readonly run: MiddlewareFn<C>;

  constructor(...middleware: Array<Middleware<C>>) {
    super();
    const list = this.list;
    this.run = (ctx, next) => {
      // `next` always returns a promise, as grammY's does: a middleware that returns nothing or
      // throws instead of rejecting still resolves or rejects it (a caller's `next().finally(…)`
      // runs either way).
      const step = (index: number): Promise<void> => {
        try {
          const result = index === list.length ? next() : list[index]!(ctx, () => step(index + 1));
          return (result instanceof Promise ? result : Promise.resolve(result)) as Promise<void>;
        } catch (error) {
          return Promise.reject(error);
        }
      };
      return step(0);
    };
    if (middleware.length > 0) this.use(...middleware);
  }

  override middleware(): MiddlewareFn<C> {
    return this.run;
  }

  override use(...middleware: Array<Middleware<C>>): Composer<C> {
    const composer = new Composer<C>(...middleware);
    this.list.push((ctx, next) => composer.middleware()(ctx, next));
    return composer;
  }

  override filter<D extends C>(predicate: (ctx: C) => ctx is D, ...middleware: Array<Middleware<D>>): Composer<D>;
  override filter(predicate: (ctx: C) => MaybePromise<boolean>, ...middleware: Array<Middleware<C>>): Composer<C>;
  override filter(predicate: (ctx: C) => MaybePromise<boolean>, ...middleware: Array<Middleware<C>>): Composer<C> {
    const composer = new Composer<C>(...middleware);
    this.list.push((ctx, next) => {
      const passes = predicate(ctx);
      if (typeof passes === "boolean") return passes ? composer.middleware()(ctx, next) : next();
      return Promise.resolve(passes).then((ok) => (ok ? composer.middleware()(ctx, next) : next()));
    });
    return composer;
  }
}
