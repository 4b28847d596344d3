import { bunRedisClientClass } from '../adapters/bun-redis/client.ts';

/** The two clients cachette opens Valkey with: iovalkey (valkey store) and Bun's built-in RedisClient (bun-redis store). */
export type ValkeyClient = 'iovalkey' | 'bun-redis';

/**
 * Which client opens VALKEY_URL / REDIS_URL on Bun; the full-stack bench decides
 * (`npm run bench:fullstack -- --runtime bun`, bench/FULLSTACK.md, which checks it). Bun's
 * RedisClient is faster store call by store call (`bun bench/fullstack/bun-transport.ts`:
 * 1.2–1.7× on get, set and incr) except getMany, since it has no binary-safe MGET and sends one
 * GET per key (0.64× at 50 in flight). Through the engine of today the two serve /work alike
 * on Bun (473 and 477, then 378 and 376 req/s), and cachette over iovalkey was ahead on a busier
 * machine: no win to justify a second code path as the default. Flip this when a rerun shows
 * Bun's client faster (and the lines of README.md and runtimes/bun/index.ts that name Bun's
 * default); an explicit `store: bunRedisStore(url)` picks it meanwhile.
 */
export const VALKEY_CLIENT_ON_BUN: ValkeyClient = 'iovalkey';

/** The client that opens a Valkey URL on this runtime: iovalkey, except on Bun when it defaults to its own. */
export function valkeyClient(): ValkeyClient {
  return bunRedisClientClass() !== undefined && VALKEY_CLIENT_ON_BUN === 'bun-redis' ? 'bun-redis' : 'iovalkey';
}
