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
  // Every read goes to the shared store, so that no instance serves its own older copy.
  cacheMaxMemorySize: 0,
};
