import { bunRedisClientClass } from '../../adapters/bun-redis/client.ts';

/** The two stores cachette opens a Valkey URL with: the valkey store (adapters/valkey) and, on Bun, the bun-redis store (Bun's built-in RedisClient). */
export type ValkeyClient = 'valkey' | 'bun-redis';

/**
 * Which store opens VALKEY_URL / REDIS_URL on Bun; the full-stack bench decides
 * (`npm run bench:fullstack -- --runtime bun` runs both on `/work`, side by side in the same
 * rounds, and its report checks that the default is the faster one).
 *
 * The valkey store, because Bun's RedisClient loses through the cache. Its only binary-safe
 * read is `getBuffer` (GET): `mget` and `send` decode replies as UTF-8 and replace the bytes
 * that are not, and cachette's entries are binary. So a getMany of 10 keys is 10 GETs, and a
 * tick of the cache's folded reads is one GET per key where the valkey store sends one MGET:
 * N commands, N promises and N replies instead of one. Measured on `/work` (2 shared cores,
 * interleaved rounds, December 2026), server CPU per request: valkey store 0.230 ms over
 * iovalkey and 0.216 ms over its own RESP connection, bun-redis store 0.271 and 0.284 ms, raw
 * RedisClient storing JSON text 0.141–0.149 ms; the valkey store made 1.29× the bun-redis
 * store's req/s (median of the rounds' ratios). An explicit `store: bunRedisStore(url)` still
 * picks Bun's client.
 */
export const VALKEY_CLIENT_ON_BUN: ValkeyClient = 'valkey';

/** The store that opens a Valkey URL on this runtime: the valkey store, except on Bun when Bun's own client is the default there. */
export function valkeyClient(): ValkeyClient {
  return bunRedisClientClass() !== undefined && VALKEY_CLIENT_ON_BUN === 'bun-redis' ? 'bun-redis' : 'valkey';
}
