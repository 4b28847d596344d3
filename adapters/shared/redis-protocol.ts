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

/**
 * Increments many counters in one command: KEYS the counters, ARGV pairs of step and TTL (0:
 * none, else applied only to a counter this call creates). One reply per counter, an error
 * reply for a counter that is not an integer, so one bad key fails only its own caller.
 */
export const INCR_MANY_LUA = `local out = {}
for i = 1, #KEYS do
  local ttl = tonumber(ARGV[2 * i])
  if ttl > 0 then redis.call('SET', KEYS[i], '0', 'PX', ttl, 'NX') end
  out[i] = redis.pcall('INCRBY', KEYS[i], ARGV[2 * i - 1])
end
return out`;

/** Deletes many keys in one command and says, key by key, whether each existed (DEL only gives the total). */
export const DELETE_EACH_LUA = `local out = {}
for i = 1, #KEYS do out[i] = redis.call('DEL', KEYS[i]) end
return out`;

/** Sets many keys in one command: KEYS the keys, ARGV pairs of value and TTL in ms (0: none). */
export const SET_MANY_LUA = `for i = 1, #KEYS do
  local ttl = tonumber(ARGV[2 * i])
  if ttl > 0 then redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ttl) else redis.call('SET', KEYS[i], ARGV[2 * i - 1]) end
end
return #KEYS`;

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
