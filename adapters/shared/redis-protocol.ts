import { StoreRefusedError } from '../../src/store/errors.ts';
import { counterOfText } from '../../src/store/layout/counter.ts';
import { CREATED_AT_OFFSET, FIXED_BYTES_V1, MAGIC, VERSION, VERSION_1, VERSION_OFFSET } from '../../src/store/layout/envelope.ts';
import { SOFT_RECORD_LUA_PATTERN } from '../../src/store/layout/soft-record.ts';
import type { GenerationWrite, SoftMoves, TagKeys, TagState } from '../../src/store/types.ts';

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
 * Server replies that say something about the server's state rather than about the command:
 * out of memory, loading its data, a read-only replica, a cluster in trouble. They count
 * against the store's health; every other error reply (WRONGTYPE, ERR not an integer …) is the
 * command's own fault and leaves the store healthy.
 */
export const HEALTH_REPLIES = /^(OOM|LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;

/**
 * Payloads from this size on are compressed by default on a Redis-protocol server over TCP: in
 * the same data centre, smaller ones cost more CPU than their bytes cost.
 */
export const TCP_COMPRESSION_THRESHOLD = 32 * 1024;

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

/**
 * The server's time in ms, inside a script. Only write-lease expiry reads it: one clock (the
 * server's) for every process, so skewed client clocks cannot stretch or shorten a lease.
 */
const SERVER_NOW = `local function server_now() local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end`;

/**
 * Store.readWithGenerations in one round trip (the semantics of readGenerationsIn,
 * adapters/shared/generation-cells.ts, which test/store/layout-agreement.test.ts holds it to). KEYS: the n entry keys, then a generation
 * key, a fence key and a soft record key per tag. ARGV: n, the epoch for missing counters,
 * then per entry key the prefix of a copy the caller holds ('' for none). Replies, per entry,
 * its value, nil, or 1 when it still starts with the known prefix (not sent back); then per tag
 * its generation, 1 or 0 for "a write lease is held", and `from:at` when the moves up to the
 * current generation were soft (nil otherwise). A missing counter is created at the epoch,
 * inside the script, so the generation a fill records is one the server holds.
 */
export const READ_WITH_GENERATIONS_LUA = `${SERVER_NOW}
local n = tonumber(ARGV[1])
local out = {}
for i = 1, n do
  local known = ARGV[2 + i]
  if known ~= '' and redis.call('GETRANGE', KEYS[i], 0, #known - 1) == known then
    out[i] = 1
  else
    out[i] = redis.call('GET', KEYS[i])
  end
end
local now
for j = n + 1, #KEYS, 3 do
  local g = redis.call('GET', KEYS[j])
  local soft = false
  if not g then
    g = ARGV[2]
    redis.call('SET', KEYS[j], g)
  else
    local record = redis.call('GET', KEYS[j + 2])
    if record then
      local from, to, at = string.match(record, ${SOFT_RECORD_LUA_PATTERN})
      if to == g then soft = from .. ':' .. at end
    end
  end
  local fenced = 0
  if redis.call('EXISTS', KEYS[j + 1]) == 1 then
    now = now or server_now()
    if redis.call('ZCOUNT', KEYS[j + 1], '(' .. string.format('%.0f', now), '+inf') > 0 then fenced = 1 end
  end
  out[#out + 1] = g
  out[#out + 1] = fenced
  out[#out + 1] = soft
end
return out`;

/**
 * Store.writeGenerations in one round trip (the semantics of writeGenerationsIn, held to it by
 * the same test). KEYS: a generation key, a fence key and a soft
 * record key per tag. ARGV: the action (bump, soft, hold, commit, release), the epoch for
 * missing counters, the writer's token, the lease TTL in ms, the time of a soft move. A soft
 * move extends the record when the move before it was soft too (its `to` is the generation
 * before), else starts one; a hard move does not touch it. A fence is a sorted set of tokens scored by their expiry on the
 * server's clock: writers never block each other, and a crashed writer's token stops counting
 * when its own expiry passes, whatever other writers do meanwhile.
 */
export const WRITE_GENERATIONS_LUA = `${SERVER_NOW}
local action = ARGV[1]
local now
if action == 'hold' then now = server_now() end
for j = 1, #KEYS, 3 do
  local fence = KEYS[j + 1]
  if action == 'hold' then
    local ttl = tonumber(ARGV[4])
    redis.call('ZREMRANGEBYSCORE', fence, '-inf', string.format('%.0f', now))
    redis.call('ZADD', fence, string.format('%.0f', now + ttl), ARGV[3])
    if redis.call('PTTL', fence) < ttl then redis.call('PEXPIRE', fence, ttl) end
  end
  if action == 'soft' and redis.call('EXISTS', KEYS[j]) == 1 then
    local before = redis.call('GET', KEYS[j])
    local g = string.format('%.0f', redis.call('INCR', KEYS[j]))
    local from = before
    local record = redis.call('GET', KEYS[j + 2])
    if record then
      local f, to = string.match(record, ${SOFT_RECORD_LUA_PATTERN})
      if to == before then from = f end
    end
    redis.call('SET', KEYS[j + 2], from .. ':' .. g .. ':' .. ARGV[5])
  elseif action ~= 'release' then
    if redis.call('EXISTS', KEYS[j]) == 1 then redis.call('INCR', KEYS[j]) else redis.call('SET', KEYS[j], ARGV[2]) end
  end
  if action == 'commit' or action == 'release' then redis.call('ZREM', fence, ARGV[3]) end
end
return 1`;

/**
 * Store.expireEntries for the keys of one script: staledEnvelope (src/store/layout/envelope.ts)
 * on the server, built from the layout's constants and held to it byte for byte by
 * test/store/layout-agreement.test.ts. KEYS: entry keys. ARGV: now (ms). Per key, reads only
 * the fixed part both versions share (the magic, the version, then created-at, fresh-for and
 * stale-for as three consecutive big-endian float64); an entry fresh at `now` gets created-at
 * and fresh-for that make it turn stale at `now`, and a TTL of its grace. Anything else (no
 * envelope, another type, unreadable times, stale already) is left alone. Replies how many
 * entries it rewrote. Lua strings count from 1, hence the `+ 1`s.
 */
export const EXPIRE_ENTRIES_LUA = `local now = tonumber(ARGV[1])
local marked = 0
for i = 1, #KEYS do
  local head = redis.pcall('GETRANGE', KEYS[i], 0, ${FIXED_BYTES_V1 - 1})
  if type(head) == 'string' and #head == ${FIXED_BYTES_V1} and string.byte(head, 1) == ${MAGIC} and (string.byte(head, ${VERSION_OFFSET + 1}) == ${VERSION} or string.byte(head, ${VERSION_OFFSET + 1}) == ${VERSION_1}) then
    local created, fresh, stale = struct.unpack('>d>d>d', head, ${CREATED_AT_OFFSET + 1})
    if created == created and created ~= math.huge and created ~= -math.huge and fresh >= 0 and stale >= 0 and now < created + fresh then
      if created > now then created = now end
      redis.call('SETRANGE', KEYS[i], ${CREATED_AT_OFFSET}, struct.pack('>d>d', created, now - created))
      if stale ~= math.huge then redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil(stale))) end
      marked = marked + 1
    end
  end
end
return marked`;

/** The flat KEYS list of the two generation scripts: entry keys first, then a generation, a fence and a soft record key per tag. */
export function generationScriptKeys(keys: readonly string[], tags: readonly TagKeys[]): string[] {
  const all = [...keys];
  for (const tag of tags) all.push(tag.generation, tag.fence, tag.soft);
  return all;
}

/** The write script's ARGV for `write`. */
export function writeGenerationsArgs(write: GenerationWrite): string[] {
  return [write.action, String(write.epoch), write.token ?? '', String(positiveMs(write.ttlMs ?? 1)), String(Math.floor(write.now ?? 0))];
}

/**
 * Reads the tag half of READ_WITH_GENERATIONS_LUA's reply (after `entrySlots` entry slots). A counter
 * that is not a safe integer (something else wrote the key) is refused, never guessed.
 */
export function parseTagStates(reply: readonly unknown[], entrySlots: number, count: number): TagState[] {
  const states: TagState[] = [];
  for (let i = 0; i < count; i++) {
    const raw = reply[entrySlots + 3 * i];
    const text = raw instanceof Uint8Array ? textDecoder.decode(raw) : String(raw);
    const generation = counterOfText(text);
    if (generation === undefined) throw new StoreRefusedError(`the tag generation counter holds "${text.slice(0, 40)}", not an integer`);
    const fenced = Number(reply[entrySlots + 3 * i + 1]) === 1;
    const soft = softMovesOf(reply[entrySlots + 3 * i + 2], generation);
    states.push(soft === undefined ? { generation, fenced } : { generation, fenced, soft });
  }
  return states;
}

/** The `from:at` a read script answers for soft moves (nil, or anything unreadable: none). */
function softMovesOf(raw: unknown, generation: number): SoftMoves | undefined {
  if (raw === null || raw === undefined) return undefined;
  const text = raw instanceof Uint8Array ? textDecoder.decode(raw) : String(raw);
  const match = /^(\d+):(-?\d+)$/.exec(text);
  if (match === null) return undefined;
  const from = Number(match[1]);
  const at = Number(match[2]);
  // A run starts below the generation it leads to; anything else is not trusted.
  return Number.isSafeInteger(from) && from < generation && Number.isSafeInteger(at) ? { from, at } : undefined;
}

const textDecoder = new TextDecoder();
