/**
 * Which commands may run through the bridge. A token lets a client in; it does not make it an
 * administrator. By default only data commands run — those `@upstash/redis` offers and
 * cachette's stores send — and scripts only when they are the stores' own, known by SHA-1.
 *
 * - Connection state and blocking commands are never available: every request shares one
 *   connection, which MULTI, SELECT, SUBSCRIBE or BLPOP would change or stall for all.
 * - Admin commands (FLUSHALL, CONFIG, SHUTDOWN, KEYS, SCRIPT FLUSH, …) and any command not
 *   listed as data need `allowAdmin` (`--allow-admin`).
 * - Other scripts (EVAL, EVALSHA, SCRIPT LOAD, FUNCTION LOAD, FCALL) need `allowEval`
 *   (`--allow-eval`). A script can call any command, so allowing them allows admin too.
 * - Data commands whose cost a number in them sets (an offset, a COUNT) are bounded, per
 *   request, unless `allowAdmin` (command-bounds.ts; the table below says why each is as it is).
 *
 * Names are checked as they are sent: request-body.ts accepts ASCII names only, on which the
 * lower-case name checked here and the upper-case one sent are the same name, and options are
 * matched ASCII-case-insensitively, as Redis matches them ({@link keyword}).
 */
import { createHash } from 'node:crypto';
import * as redisProtocol from '../../adapters/shared/redis-protocol.ts';
import { bitfieldBound, collectionScanBound, copyBound, randomPickBound, RequestBounds, scanBound, setbitBound, setrangeBound, type Bound } from './command-bounds.ts';
import { keyword, type BridgeCommand } from './request-body.ts';

/** Options of {@link commandPolicy}. */
export interface CommandPolicyOptions {
  /** Let admin commands (and commands the bridge does not list) through. Default false. */
  allowAdmin?: boolean;
  /** Let any script through. Default false: only {@link STORE_SCRIPTS} and `scripts`. */
  allowEval?: boolean;
  /** More Lua scripts (their source) that may run without `allowEval`. */
  scripts?: readonly string[];
  /** Most bytes the commands of one request may grow strings by through offsets (SETRANGE, SETBIT, BITFIELD). Default 16 MiB. */
  maxGrowthBytes?: number;
}

/** Why a command is refused: 400 when the bridge cannot offer it, 403 when the policy forbids it. */
export interface Refusal {
  status: 400 | 403;
  message: string;
}

/** The Lua scripts cachette's stores send: every `*_LUA` of the shared Redis protocol module. */
export const STORE_SCRIPTS: readonly string[] = Object.entries(redisProtocol)
  .filter(([name, value]) => name.endsWith('_LUA') && typeof value === 'string')
  .map(([, value]) => value as string);

// Would change or stall the one connection every request shares. Real Upstash offers none of
// them on POST (pub/sub has its own streaming paths).
const CONNECTION_STATE = new Set([
  'multi',
  'exec',
  'discard',
  'watch',
  'unwatch',
  'select',
  'auth',
  'hello',
  'reset',
  'quit',
  'client',
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'unsubscribe',
  'punsubscribe',
  'sunsubscribe',
  'monitor',
  'sync',
  'psync',
  'replconf',
  'blpop',
  'brpop',
  'brpoplpush',
  'blmove',
  'blmpop',
  'bzpopmin',
  'bzpopmax',
  'bzmpop',
  'wait',
  'waitaof',
]);

/**
 * What a data command costs, decided for each one (issue 23, item 6): the classes say why no
 * bound is needed, a {@link Bound} says which one applies (command-bounds.ts).
 *
 * - `fixed`: O(1) or O(log N) work and a reply of fixed size.
 * - `arguments`: work, growth and reply in proportion to the command's own arguments (MSET,
 *   LPUSH, DEL k1 k2 …), which the body size already bounds.
 * - `stored`: work or reply in proportion to data already stored that the command names (GET of
 *   a long string, SMEMBERS, LRANGE 0 -1, SUNIONSTORE, DEL of a large set). Someone had to
 *   write that data, through requests the body size bounds, and no number in the command can
 *   make it larger: a range or a positive count is clamped to what is there. Total size is
 *   the server's to bound (`maxmemory`); the bridge bounds what one command can add to it.
 */
type Cost = 'fixed' | 'arguments' | 'stored' | Bound;

const DATA_COMMANDS: ReadonlyMap<string, Cost> = new Map<string, Cost>([
  // strings and bitmaps
  ['get', 'stored'],
  ['set', 'arguments'],
  ['setnx', 'arguments'],
  ['setex', 'arguments'],
  ['psetex', 'arguments'],
  ['getset', 'stored'],
  ['getdel', 'stored'],
  ['getex', 'stored'],
  ['getrange', 'stored'], // the range is clamped to the string
  ['setrange', setrangeBound],
  ['substr', 'stored'],
  ['mget', 'stored'],
  ['mset', 'arguments'],
  ['msetnx', 'arguments'],
  ['append', 'arguments'],
  ['strlen', 'fixed'],
  ['incr', 'fixed'],
  ['incrby', 'fixed'],
  ['incrbyfloat', 'fixed'],
  ['decr', 'fixed'],
  ['decrby', 'fixed'],
  // LCS is not here: O(N × M) in the two strings' lengths (two strings of 11 KB cost 0.35 s of
  // Redis each time), so a small pipeline blocks the server for an hour. --allow-admin only.
  ['getbit', 'fixed'], // beyond the end reads 0, allocating nothing
  ['setbit', setbitBound],
  ['bitcount', 'stored'],
  ['bitop', 'stored'], // the result is as long as the longest source
  ['bitpos', 'stored'],
  ['bitfield', bitfieldBound],
  ['bitfield_ro', 'arguments'], // GET only: reads beyond the end allocate nothing
  // keys
  ['del', 'stored'],
  ['unlink', 'arguments'], // freed in the background
  ['exists', 'arguments'],
  ['expire', 'fixed'],
  ['expireat', 'fixed'],
  ['pexpire', 'fixed'],
  ['pexpireat', 'fixed'],
  ['expiretime', 'fixed'],
  ['pexpiretime', 'fixed'],
  ['ttl', 'fixed'],
  ['pttl', 'fixed'],
  ['persist', 'fixed'],
  ['type', 'fixed'],
  ['touch', 'arguments'],
  ['rename', 'stored'], // frees what the destination held
  ['renamenx', 'fixed'],
  ['copy', copyBound],
  ['scan', scanBound],
  ['randomkey', 'fixed'],
  ['dbsize', 'fixed'],
  // hashes
  ['hset', 'arguments'],
  ['hsetnx', 'arguments'],
  ['hget', 'stored'],
  ['hmget', 'stored'],
  ['hmset', 'arguments'],
  ['hgetall', 'stored'],
  ['hdel', 'arguments'],
  ['hexists', 'fixed'],
  ['hincrby', 'fixed'],
  ['hincrbyfloat', 'fixed'],
  ['hkeys', 'stored'],
  ['hvals', 'stored'],
  ['hlen', 'fixed'],
  ['hstrlen', 'fixed'],
  ['hscan', collectionScanBound],
  ['hrandfield', randomPickBound],
  ['hgetdel', 'stored'],
  ['hgetex', 'stored'],
  ['hsetex', 'arguments'],
  ['hexpire', 'arguments'],
  ['hpexpire', 'arguments'],
  ['hexpireat', 'arguments'],
  ['hpexpireat', 'arguments'],
  ['httl', 'arguments'],
  ['hpttl', 'arguments'],
  ['hexpiretime', 'arguments'],
  ['hpexpiretime', 'arguments'],
  ['hpersist', 'arguments'],
  // lists
  ['lpush', 'arguments'],
  ['rpush', 'arguments'],
  ['lpushx', 'arguments'],
  ['rpushx', 'arguments'],
  ['lpop', 'stored'], // a count pops at most the whole list
  ['rpop', 'stored'],
  ['llen', 'fixed'],
  ['lrange', 'stored'], // the range is clamped to the list
  ['lindex', 'stored'],
  ['lset', 'stored'],
  ['lrem', 'stored'],
  ['ltrim', 'stored'],
  ['linsert', 'stored'],
  ['lpos', 'stored'], // COUNT and MAXLEN cap a walk of the list
  ['lmove', 'fixed'],
  ['lmpop', 'stored'],
  ['rpoplpush', 'fixed'],
  // sets
  ['sadd', 'arguments'],
  ['srem', 'arguments'],
  ['smembers', 'stored'],
  ['sismember', 'fixed'],
  ['smismember', 'arguments'],
  ['scard', 'fixed'],
  ['spop', 'stored'], // a count pops at most the whole set
  ['srandmember', randomPickBound],
  ['smove', 'fixed'],
  ['sdiff', 'stored'],
  ['sdiffstore', 'stored'],
  ['sinter', 'stored'],
  ['sintercard', 'stored'],
  ['sinterstore', 'stored'],
  ['sunion', 'stored'],
  ['sunionstore', 'stored'],
  ['sscan', collectionScanBound],
  // sorted sets
  ['zadd', 'arguments'],
  ['zrem', 'arguments'],
  ['zcard', 'fixed'],
  ['zcount', 'fixed'],
  ['zscore', 'fixed'],
  ['zmscore', 'arguments'],
  ['zincrby', 'fixed'],
  ['zrange', 'stored'], // ranges and LIMIT are clamped to the set
  ['zrangestore', 'stored'],
  ['zrangebyscore', 'stored'],
  ['zrevrangebyscore', 'stored'],
  ['zrangebylex', 'stored'],
  ['zrevrangebylex', 'stored'],
  ['zrevrange', 'stored'],
  ['zrank', 'fixed'],
  ['zrevrank', 'fixed'],
  ['zlexcount', 'fixed'],
  ['zpopmin', 'stored'],
  ['zpopmax', 'stored'],
  ['zmpop', 'stored'],
  ['zremrangebyrank', 'stored'],
  ['zremrangebyscore', 'stored'],
  ['zremrangebylex', 'stored'],
  ['zunion', 'stored'],
  ['zunionstore', 'stored'],
  ['zinter', 'stored'],
  ['zinterstore', 'stored'],
  ['zintercard', 'stored'],
  ['zdiff', 'stored'],
  ['zdiffstore', 'stored'],
  ['zrandmember', randomPickBound],
  ['zscan', collectionScanBound],
  // HyperLogLog (at most 12 KB each), geo, streams (XREAD and XREADGROUP only without BLOCK, checked below)
  ['pfadd', 'arguments'],
  ['pfcount', 'arguments'],
  ['pfmerge', 'arguments'],
  ['geoadd', 'arguments'],
  ['geodist', 'fixed'],
  ['geohash', 'arguments'],
  ['geopos', 'arguments'],
  ['geosearch', 'stored'], // a radius or box finds at most the members stored
  ['geosearchstore', 'stored'],
  ['xadd', 'arguments'], // MAXLEN and MINID trim what is stored
  ['xrange', 'stored'],
  ['xrevrange', 'stored'],
  ['xlen', 'fixed'],
  ['xdel', 'arguments'],
  ['xtrim', 'stored'],
  ['xread', 'stored'],
  ['xreadgroup', 'stored'],
  ['xgroup', 'stored'],
  ['xack', 'arguments'],
  ['xpending', 'stored'],
  ['xclaim', 'arguments'],
  ['xautoclaim', 'stored'],
  ['xinfo', 'stored'],
  ['xsetid', 'fixed'],
  // RedisJSON, as the SDK's json.* commands send it (its arrays are never sparse: an index past the end is an error)
  ['json.arrappend', 'arguments'],
  ['json.arrindex', 'stored'],
  ['json.arrinsert', 'arguments'],
  ['json.arrlen', 'fixed'],
  ['json.arrpop', 'stored'],
  ['json.arrtrim', 'stored'],
  ['json.clear', 'stored'],
  ['json.del', 'stored'],
  ['json.forget', 'stored'],
  ['json.get', 'stored'],
  ['json.merge', 'arguments'],
  ['json.mget', 'stored'],
  ['json.mset', 'arguments'],
  ['json.numincrby', 'fixed'],
  ['json.nummultby', 'fixed'],
  ['json.objkeys', 'stored'],
  ['json.objlen', 'fixed'],
  ['json.resp', 'stored'],
  ['json.set', 'arguments'],
  ['json.strappend', 'arguments'],
  ['json.strlen', 'fixed'],
  ['json.toggle', 'fixed'],
  ['json.type', 'fixed'],
  // messages and harmless server replies
  ['publish', 'arguments'],
  ['spublish', 'arguments'],
  ['ping', 'arguments'],
  ['echo', 'arguments'],
  ['time', 'fixed'],
]);

const SCRIPT_BODY = new Set(['eval', 'eval_ro']);
const SCRIPT_SHA = new Set(['evalsha', 'evalsha_ro']);
const FUNCTION_CALLS = new Set(['fcall', 'fcall_ro']);

/** Decides, per command, whether it may run. */
export interface CommandPolicy {
  /**
   * The check for the commands of one request (one command, a pipeline or a transaction), in
   * order: undefined when a command may run, otherwise why not. The bounds that add up over a
   * request (growth by offset) count every command checked that may run.
   */
  forRequest(): (command: BridgeCommand) => Refusal | undefined;
}

const DEFAULT_MAX_GROWTH = 16 * 1024 * 1024;

/** Builds the policy from the bridge's options. */
export function commandPolicy(options: CommandPolicyOptions = {}): CommandPolicy {
  const allowAdmin = options.allowAdmin === true;
  const allowEval = options.allowEval === true;
  const maxGrowthBytes = options.maxGrowthBytes ?? DEFAULT_MAX_GROWTH;
  const known = new Set([...STORE_SCRIPTS, ...(options.scripts ?? [])].map(sha1));
  const scriptAllowed = (sha: string | undefined) => allowEval || (sha !== undefined && known.has(sha.toLowerCase()));

  function check({ name, args }: BridgeCommand): Refusal | undefined {
    if (CONNECTION_STATE.has(name) || ((name === 'xread' || name === 'xreadgroup') && args.some((a) => keyword(a) === 'block'))) {
      return { status: 400, message: `ERR command '${name}' is not available through the bridge: it would block or change the connection all requests share` };
    }
    if (SCRIPT_BODY.has(name)) return scriptAllowed(args[0] === undefined ? undefined : sha1(args[0])) ? undefined : notOwnScript(name);
    if (SCRIPT_SHA.has(name)) return scriptAllowed(args[0]) ? undefined : notOwnScript(name);
    if (name === 'script') {
      const sub = keyword(args[0]);
      if (sub === 'exists') return undefined;
      if (sub === 'load') return scriptAllowed(args[1] === undefined ? undefined : sha1(args[1])) ? undefined : notOwnScript('script load');
    }
    if (FUNCTION_CALLS.has(name) || (name === 'function' && keyword(args[0]) === 'load')) {
      return allowEval ? undefined : { status: 403, message: `ERR '${name}' runs server-side code, which the bridge allows only with --allow-eval (allowEval)` };
    }
    if (allowAdmin || DATA_COMMANDS.has(name)) return undefined;
    return { status: 403, message: `ERR command '${name}' is not allowed through the bridge: admin and unlisted commands need --allow-admin (allowAdmin)` };
  }

  return {
    forRequest() {
      const bounds = new RequestBounds(maxGrowthBytes);
      return (command) => {
        const refused = check(command);
        if (refused !== undefined || allowAdmin) return refused;
        const cost = DATA_COMMANDS.get(command.name);
        const exceeded = typeof cost === 'function' ? cost(command, bounds) : undefined;
        return exceeded === undefined ? undefined : { status: 403, message: exceeded };
      };
    },
  };
}

function notOwnScript(name: string): Refusal {
  return { status: 403, message: `ERR '${name}' of a script that is not one of cachette's stores' own: other scripts need --allow-eval (allowEval)` };
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
