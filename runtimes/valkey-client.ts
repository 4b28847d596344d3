import { bunRedisClientClass } from '../adapters/bun-redis/client.ts';

/** The two clients cachette opens Valkey with: iovalkey (valkey store) and Bun's built-in RedisClient (bun-redis store). */
export type ValkeyClient = 'iovalkey' | 'bun-redis';

/**
 * Which client opens VALKEY_URL / REDIS_URL on Bun. The full-stack bench decides
 * (`npm run bench:fullstack -- --runtime bun`, bench/FULLSTACK.md): Bun's RedisClient is
 * faster store call by store call (`bun bench/fullstack/bun-transport.ts`), but it has no
 * binary-safe MGET, so the reads the engine folds into one getMany become one GET per key,
 * and through the engine of today cachette over iovalkey served more /work requests on Bun,
 * at less server CPU per request, in every round measured. Flip this when a rerun says
 * otherwise (and the lines of README.md and runtimes/bun/index.ts that name Bun's default);
 * an explicit `store: bunRedisStore(url)` picks Bun's client meanwhile.
 */
export const VALKEY_CLIENT_ON_BUN: ValkeyClient = 'iovalkey';

/** The client that opens a Valkey URL on this runtime: iovalkey, except on Bun when it defaults to its own. */
export function valkeyClient(): ValkeyClient {
  return bunRedisClientClass() !== undefined && VALKEY_CLIENT_ON_BUN === 'bun-redis' ? 'bun-redis' : 'iovalkey';
}
