import { bunRedisClientClass } from '../adapters/bun-redis/client.ts';

/** The two clients cachette opens Valkey with: iovalkey (valkey store) and Bun's built-in RedisClient (bun-redis store). */
export type ValkeyClient = 'iovalkey' | 'bun-redis';

/**
 * Which client opens VALKEY_URL / REDIS_URL on Bun; the full-stack bench decides
 * (`npm run bench:fullstack -- --runtime bun`, bench/FULLSTACK.md, which checks it). Bun's
 * RedisClient is faster store call by store call one at a time (`bun bench/fullstack/bun-transport.ts`:
 * 1.5–1.9× on get, set and incr), but through the engine with 50 calls in flight it loses on
 * getMany (0.74×: it has no binary-safe MGET, so one GET per key) and on large writes (0.69×).
 * On /work (engine of 2026-11-30, Valkey runs folded into scripts) the two traded places in two
 * runs (iovalkey 413 and 549 req/s, Bun's client 458 and 458) and iovalkey used less server CPU
 * per request in both (0.66 and 0.54 ms against 0.70 and 0.63): no win to justify a second code
 * path as the default. Flip this when a rerun shows Bun's client faster (and the lines of
 * README.md and runtimes/bun/index.ts that name Bun's default); an explicit
 * `store: bunRedisStore(url)` picks it meanwhile.
 */
export const VALKEY_CLIENT_ON_BUN: ValkeyClient = 'iovalkey';

/** The client that opens a Valkey URL on this runtime: iovalkey, except on Bun when it defaults to its own. */
export function valkeyClient(): ValkeyClient {
  return bunRedisClientClass() !== undefined && VALKEY_CLIENT_ON_BUN === 'bun-redis' ? 'bun-redis' : 'iovalkey';
}
