import { fileURLToPath } from 'node:url';

const handler = (file) => fileURLToPath(new URL(file, import.meta.url));

/** @type {import('next').NextConfig} */
export default {
  cacheComponents: true,
  // Next 16.4 warns on every build and start when cacheComponents comes without it (16.0–16.2 do not know it: leave it out there).
  partialPrefetching: true,
  // "use cache" (and "use cache: remote") through cachette: one store for every instance.
  cacheHandlers: { default: handler('./use-cache-handler.mjs'), remote: handler('./use-cache-handler.mjs') },
  // The incremental cache (ISR, pages, route handlers, fetch) through cachette too.
  cacheHandler: handler('./cache-handler.mjs'),
  // No per-instance copy in memory in front of the shared store (as Next advises with custom handlers).
  cacheMaxMemorySize: 0,
};
