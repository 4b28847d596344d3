// Loaded by Next for "use cache" (next.config's cacheHandlers). With no options, the store comes
// from the environment: VALKEY_URL or REDIS_URL, UPSTASH_REDIS_REST_URL + _TOKEN,
// CACHETTE_STORE=sqlite:PATH, otherwise process memory (one instance).
import { createCacheHandler } from 'cachette/next';

export default createCacheHandler();
