import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { valkeyStore } from 'cachette/adapters/valkey';
import cachetteDriver from 'cachette/unstorage';
import { defineNitroPlugin, useStorage } from 'nitro/runtime';

// The app's cachette cache: Valkey when REDIS_URL is set (every instance shares it), else memory.
const cache = createCache({
  store: process.env.REDIS_URL ? valkeyStore(process.env.REDIS_URL) : memoryStore(),
  prefix: 'nitro-example',
});

// Nitro's cached functions and handlers live under the `cache` mount: through cachette, with each
// entry of the `greeting` function tagged `greetings`, so `cache.invalidateTags(['greetings'])`
// (from any instance) makes them misses. Routes reach the cache through the mount's driver.
export default defineNitroPlugin(() => {
  useStorage().mount('cache', cachetteDriver({ store: cache, tags: (key) => (key.startsWith('nitro:functions:greeting:') ? ['greetings'] : []) }));
});
