/**
 * cachette/next: Next.js cache handlers over any cachette store, for `"use cache"`
 * (`cacheHandlers`) and for the incremental cache (`cacheHandler`: ISR, pages, route handlers,
 * `fetch`). Tags are cachette's tag generations, so a revalidation on one instance is seen by
 * every instance on its next read. See docs/next.md.
 *
 * This is the runtime-neutral build (what an edge bundle resolves): it needs a `store` or a
 * `cache`. Node, Bun and Deno resolve `cachette/next` to runtimes/native/next.ts, which also
 * picks the store from the environment.
 */
import type { StorePicker } from './options.ts';
import { nextHandlerFactories } from './handlers.ts';

const explicitOnly: StorePicker = (named, _log, where) => {
  throw new TypeError(
    named === undefined
      ? `${where}: pass a "store" (or a "cache"): this runtime has no environment to pick one from`
      : `${where}: "store": the string ${JSON.stringify(named)} names a store only on Node, Bun and Deno; pass a store object here`,
  );
};

/** `createCacheHandler` and `createIncrementalCacheHandler`, for a store or cache you pass. */
export const { createCacheHandler, createIncrementalCacheHandler } = nextHandlerFactories(explicitOnly);
export type { NextHandlerFactories } from './handlers.ts';
export type { NextCacheCreationOptions, NextCacheOptions, NextHandlerStats } from './options.ts';
export type {
  CacheControl,
  IncrementalCacheHandlerValue,
  IncrementalCacheValue,
  IncrementalGetContext,
  IncrementalSetContext,
  NextIncrementalCacheHandler,
  NextIncrementalCacheHandlerClass,
  NextUseCacheHandler,
  TagDurations,
  UseCacheEntry,
} from './next-types.ts';
