import type { EngineContext } from '../roles/context.ts';
import { FactoryTimeoutError } from '../errors.ts';
import { FillContext } from './factory-context.ts';
import type { FillRequest } from './fill-request.ts';

/** Aborts the cache: later runs start aborted, and every run in flight gets `reason` on its `ctx.signal`. */
export function abortFactoryRuns(ctx: EngineContext, reason: unknown): void {
  ctx.closing.abort(reason);
  for (const controller of ctx.factoryRuns) controller.abort(reason);
  ctx.factoryRuns.clear();
}

/** What one factory run returned, with the context it ran with (what it asked for). */
export interface Ran<T> {
  readonly value: T;
  readonly context: FillContext<T>;
  /** How long the factory took on the cache's clock (Δ for `xfetch`): a fake clock's time, when a test moves it. */
  readonly computeMs: number;
}

/**
 * Runs the factory of `request` once with its context, within `factoryTimeout`, and reports
 * the run (a `fill` event, the counters). The context's signal is aborted when the time is up
 * or the cache closes; a run whose factory called `ctx.fail()` is a failure whatever it then
 * returned. `stale` is the factory's `ctx.stale`; `background` says no caller waits for it.
 */
export function runFactory<T>(ctx: EngineContext, request: FillRequest<T>, stale: T | undefined, background: boolean): Promise<Ran<T>> {
  const { events, counters } = ctx;
  const { factoryTimeoutMs } = ctx.options;
  const closing = ctx.closing.signal;
  const { key } = request;
  const began = performance.now();
  const beganAt = ctx.now();
  const controller = new AbortController();
  const context = new FillContext<T>(key, stale, controller.signal, request.lifetimes);
  if (closing.aborted) controller.abort(closing.reason);
  else ctx.factoryRuns.add(controller);
  let run: Promise<T> = new Promise<T>((resolve) => resolve(request.factory(context)));
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (Number.isFinite(factoryTimeoutMs)) {
    run = Promise.race([
      run,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new FactoryTimeoutError(key, factoryTimeoutMs);
          controller.abort(error);
          reject(error);
        }, factoryTimeoutMs);
      }),
    ]);
  }
  counters.fills++;
  const settled = () => {
    if (timer !== undefined) clearTimeout(timer);
    ctx.factoryRuns.delete(controller);
  };
  const failed = (error: unknown): never => {
    counters.factoryErrors++;
    if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background, error });
    throw error;
  };
  return run.then(
    (value) => {
      settled();
      if (context.failure) return failed(context.failure.error);
      if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background });
      return { value, context, computeMs: Math.max(0, ctx.now() - beganAt) };
    },
    (error: unknown) => {
      settled();
      return failed(context.failure ? context.failure.error : error);
    },
  );
}
