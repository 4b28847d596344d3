/**
 * The controls every HTTP binding hands back beside its middleware or plugin (cachette/hono,
 * express, fastify, koa, h3, elysia): one shape, one way of making it from the policy.
 */
import type { HttpCache, PurgeTarget } from '../http/exchange/http-cache.ts';

/** What a binding's middleware or plugin carries besides itself: the cache's controls. */
export interface HttpCacheControls {
  /** Deletes the responses stored for a URL (every variant) or carrying a tag. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background store writes and revalidations have settled. */
  idle(): Promise<void>;
  /** Waits for background work, then closes the engine the binding opened (never a store or cache you passed in). */
  close(): Promise<void>;
  /** The policy object behind the binding. */
  readonly httpCache: HttpCache;
}

/** The controls of `policy`, to put on a middleware or plugin with `Object.assign`. */
export function controlsOf(policy: HttpCache): HttpCacheControls {
  return {
    purge: (target) => policy.purge(target),
    idle: () => policy.idle(),
    close: () => policy.close(),
    httpCache: policy,
  };
}
