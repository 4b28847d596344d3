import type { Cache } from 'cachette';
import { defineHandler } from 'nitro/h3';
import { useStorage } from 'nitro/runtime';

/** Invalidates every cached greeting, on every instance that shares the store. */
export default defineHandler(async () => {
  // The cachette driver's instance is the cache it works through (plugins/cachette.ts).
  const cache = useStorage().getMount('cache').driver.getInstance?.() as Cache;
  return { invalidated: await cache.invalidateTags(['greetings']) };
});
