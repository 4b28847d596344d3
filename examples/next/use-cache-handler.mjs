// Loaded by Next for "use cache": the store comes from the environment (REDIS_URL, VALKEY_URL,
// UPSTASH_REDIS_REST_URL + _TOKEN, CACHETTE_STORE=sqlite:PATH; otherwise process memory).
import { createCacheHandler } from 'cachette/next';

export default createCacheHandler({ prefix: 'next-example', timeout: '500ms' });
