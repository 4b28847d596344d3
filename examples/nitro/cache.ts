import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { valkeyStore } from 'cachette/adapters/valkey';

/** The app's cachette cache: Valkey when REDIS_URL is set (every instance shares it), else process memory. */
export const cache = createCache({
  store: process.env.REDIS_URL ? valkeyStore(process.env.REDIS_URL) : memoryStore(),
  prefix: 'nitro-example',
});
