/**
 * Pieces every Redis-protocol adapter (valkey over TCP, upstash over HTTP) shares, kept once.
 */

/**
 * Deletes the key only while it still holds the caller's token: releasing a lease must never
 * release somebody else's. GET/DEL/EVAL exist on Redis 7 and on Valkey alike.
 */
export const COMPARE_AND_DELETE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Increments a counter and, only when this call creates it, gives it a TTL: SET NX PX then
 * INCRBY, atomically, in one command (a MULTI would take four).
 */
export const INCR_WITH_TTL_LUA = `redis.call('SET', KEYS[1], '0', 'PX', ARGV[2], 'NX') return redis.call('INCRBY', KEYS[1], ARGV[1])`;

/** Keys a SCAN step asks for when clearing a prefix. */
export const SCAN_BATCH = 500;

/** PX refuses 0 and negatives; anything that rounds down to 0 still means "a moment". */
export function positiveMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}

/** A SCAN MATCH pattern for every key that starts with `prefix`, glob characters escaped. */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}
