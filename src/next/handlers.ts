import { incrementalHandlerClass } from './incremental-handler.ts';
import type { NextIncrementalCacheHandlerClass, NextUseCacheHandler } from './next-types.ts';
import { handlerContext, type NextCacheOptions, type StorePicker } from './options.ts';
import { directiveCacheHandler } from './use-cache-handler.ts';

/** The two factories of `cachette/next`, as one entry point builds them. */
export interface NextHandlerFactories {
  /**
   * The handler Next's `cacheHandlers` option loads for `"use cache"` (and `"use cache: remote"`):
   * default-export it from a module and name that module in next.config. See docs/next.md.
   */
  createCacheHandler(options?: NextCacheOptions): NextUseCacheHandler;
  /**
   * The class Next's `cacheHandler` option loads for the incremental cache (ISR and App Router
   * pages, route handlers, the `fetch` cache): default-export it from a module and name that
   * module in next.config. See docs/next.md.
   */
  createIncrementalCacheHandler(options?: NextCacheOptions): NextIncrementalCacheHandlerClass;
}

/**
 * Builds the factories over `pick`, which finds the store when the options name none, and
 * `platformBytes`, which turns stored bytes into the ones Next expects where it runs (Buffers on
 * Node, Bun and Deno).
 */
export function nextHandlerFactories(pick: StorePicker, platformBytes: (bytes: Uint8Array) => Uint8Array = (bytes) => bytes): NextHandlerFactories {
  return {
    createCacheHandler: (options) => directiveCacheHandler(handlerContext(options, pick, 'createCacheHandler() from cachette/next')),
    createIncrementalCacheHandler: (options) => incrementalHandlerClass(handlerContext(options, pick, 'createIncrementalCacheHandler() from cachette/next'), platformBytes),
  };
}
