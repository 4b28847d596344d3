import cachetteDriver from 'cachette/unstorage';
import { defineNitroPlugin, useStorage } from 'nitro/runtime';
import { cache } from '../cache.ts';

// Nitro's cached functions and handlers live under the `cache` mount: through cachette, with each
// entry of the `greeting` function tagged `greetings`, so `cache.invalidateTags(['greetings'])`
// (from any instance) makes them misses.
export default defineNitroPlugin(() => {
  useStorage().mount('cache', cachetteDriver({ store: cache, tags: (key) => (key.startsWith('nitro:functions:greeting:') ? ['greetings'] : []) }));
});
