import { fileURLToPath } from 'node:url';

/** @type {import('next').NextConfig} */
export default {
  cacheComponents: true,
  partialPrefetching: true,
  // "use cache" (and "use cache: remote") through cachette: one store for every instance.
  cacheHandlers: {
    default: fileURLToPath(new URL('./use-cache-handler.mjs', import.meta.url)),
    remote: fileURLToPath(new URL('./use-cache-handler.mjs', import.meta.url)),
  },
  // The incremental cache (pages, route handlers, ISR, fetch) through cachette too.
  cacheHandler: fileURLToPath(new URL('./cache-handler.mjs', import.meta.url)),
  // No per-instance copy in memory in front of the shared store (as Next advises with custom handlers).
  cacheMaxMemorySize: 0,
};
