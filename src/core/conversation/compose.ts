// A tiny (ctx, next) middleware chain, as in grammY/Koa: each step may answer and stop, or pass on.

type Next = () => Promise<void>;
export type Middleware<C> = (ctx: C, next: Next) => Promise<void>;

export function compose<C>(middlewares: Middleware<C>[]): (ctx: C) => Promise<void> {
  return (ctx) => {
    const run = async (i: number): Promise<void> => {
      const mw = middlewares[i];
      if (!mw) return;
      let called = false;
      await mw(ctx, () => {
        if (called) throw new Error("next() called twice");
        called = true;
        return run(i + 1);
      });
    };
    return run(0);
  };
}
