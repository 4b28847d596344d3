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
 */
import { createHash } from 'node:crypto';
import * as redisProtocol from '../../../adapters/shared/redis-protocol.ts';
import type { BridgeCommand } from './request-body.ts';

/** Options of {@link commandPolicy}. */
export interface CommandPolicyOptions {
  /** Let admin commands (and commands the bridge does not list) through. Default false. */
  allowAdmin?: boolean;
  /** Let any script through. Default false: only {@link STORE_SCRIPTS} and `scripts`. */
  allowEval?: boolean;
  /** More Lua scripts (their source) that may run without `allowEval`. */
  scripts?: readonly string[];
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

const DATA_COMMANDS = new Set([
  // strings and bitmaps
  'get',
  'set',
  'setnx',
  'setex',
  'psetex',
  'getset',
  'getdel',
  'getex',
  'getrange',
  'setrange',
  'substr',
  'mget',
  'mset',
  'msetnx',
  'append',
  'strlen',
  'incr',
  'incrby',
  'incrbyfloat',
  'decr',
  'decrby',
  'lcs',
  'getbit',
  'setbit',
  'bitcount',
  'bitop',
  'bitpos',
  'bitfield',
  'bitfield_ro',
  // keys
  'del',
  'unlink',
  'exists',
  'expire',
  'expireat',
  'pexpire',
  'pexpireat',
  'expiretime',
  'pexpiretime',
  'ttl',
  'pttl',
  'persist',
  'type',
  'touch',
  'rename',
  'renamenx',
  'copy',
  'scan',
  'randomkey',
  'dbsize',
  // hashes
  'hset',
  'hsetnx',
  'hget',
  'hmget',
  'hmset',
  'hgetall',
  'hdel',
  'hexists',
  'hincrby',
  'hincrbyfloat',
  'hkeys',
  'hvals',
  'hlen',
  'hstrlen',
  'hscan',
  'hrandfield',
  'hgetdel',
  'hgetex',
  'hsetex',
  'hexpire',
  'hpexpire',
  'hexpireat',
  'hpexpireat',
  'httl',
  'hpttl',
  'hexpiretime',
  'hpexpiretime',
  'hpersist',
  // lists
  'lpush',
  'rpush',
  'lpushx',
  'rpushx',
  'lpop',
  'rpop',
  'llen',
  'lrange',
  'lindex',
  'lset',
  'lrem',
  'ltrim',
  'linsert',
  'lpos',
  'lmove',
  'lmpop',
  'rpoplpush',
  // sets
  'sadd',
  'srem',
  'smembers',
  'sismember',
  'smismember',
  'scard',
  'spop',
  'srandmember',
  'smove',
  'sdiff',
  'sdiffstore',
  'sinter',
  'sintercard',
  'sinterstore',
  'sunion',
  'sunionstore',
  'sscan',
  // sorted sets
  'zadd',
  'zrem',
  'zcard',
  'zcount',
  'zscore',
  'zmscore',
  'zincrby',
  'zrange',
  'zrangestore',
  'zrangebyscore',
  'zrevrangebyscore',
  'zrangebylex',
  'zrevrangebylex',
  'zrevrange',
  'zrank',
  'zrevrank',
  'zlexcount',
  'zpopmin',
  'zpopmax',
  'zmpop',
  'zremrangebyrank',
  'zremrangebyscore',
  'zremrangebylex',
  'zunion',
  'zunionstore',
  'zinter',
  'zinterstore',
  'zintercard',
  'zdiff',
  'zdiffstore',
  'zrandmember',
  'zscan',
  // HyperLogLog, geo, streams (XREAD and XREADGROUP only without BLOCK, checked below)
  'pfadd',
  'pfcount',
  'pfmerge',
  'geoadd',
  'geodist',
  'geohash',
  'geopos',
  'geosearch',
  'geosearchstore',
  'xadd',
  'xrange',
  'xrevrange',
  'xlen',
  'xdel',
  'xtrim',
  'xread',
  'xreadgroup',
  'xgroup',
  'xack',
  'xpending',
  'xclaim',
  'xautoclaim',
  'xinfo',
  'xsetid',
  // RedisJSON, as the SDK's json.* commands send it
  'json.arrappend',
  'json.arrindex',
  'json.arrinsert',
  'json.arrlen',
  'json.arrpop',
  'json.arrtrim',
  'json.clear',
  'json.del',
  'json.forget',
  'json.get',
  'json.merge',
  'json.mget',
  'json.mset',
  'json.numincrby',
  'json.nummultby',
  'json.objkeys',
  'json.objlen',
  'json.resp',
  'json.set',
  'json.strappend',
  'json.strlen',
  'json.toggle',
  'json.type',
  // messages and harmless server replies
  'publish',
  'spublish',
  'ping',
  'echo',
  'time',
]);

const SCRIPT_BODY = new Set(['eval', 'eval_ro']);
const SCRIPT_SHA = new Set(['evalsha', 'evalsha_ro']);
const FUNCTION_CALLS = new Set(['fcall', 'fcall_ro']);

/** Decides, per command, whether it may run. */
export interface CommandPolicy {
  /** Undefined when `command` may run; otherwise why not. */
  check(command: BridgeCommand): Refusal | undefined;
}

/** Builds the policy from the bridge's options. */
export function commandPolicy(options: CommandPolicyOptions = {}): CommandPolicy {
  const allowAdmin = options.allowAdmin === true;
  const allowEval = options.allowEval === true;
  const known = new Set([...STORE_SCRIPTS, ...(options.scripts ?? [])].map(sha1));
  const scriptAllowed = (sha: string | undefined) => allowEval || (sha !== undefined && known.has(sha.toLowerCase()));

  return {
    check({ name, args }) {
      if (CONNECTION_STATE.has(name) || ((name === 'xread' || name === 'xreadgroup') && args.some((a) => a.toLowerCase() === 'block'))) {
        return { status: 400, message: `ERR command '${name}' is not available through the bridge: it would block or change the connection all requests share` };
      }
      if (SCRIPT_BODY.has(name)) return scriptAllowed(args[0] === undefined ? undefined : sha1(args[0])) ? undefined : notOwnScript(name);
      if (SCRIPT_SHA.has(name)) return scriptAllowed(args[0]) ? undefined : notOwnScript(name);
      if (name === 'script') {
        const sub = args[0]?.toLowerCase();
        if (sub === 'exists') return undefined;
        if (sub === 'load') return scriptAllowed(args[1] === undefined ? undefined : sha1(args[1])) ? undefined : notOwnScript('script load');
      }
      if (FUNCTION_CALLS.has(name) || (name === 'function' && args[0]?.toLowerCase() === 'load')) {
        return allowEval ? undefined : { status: 403, message: `ERR '${name}' runs server-side code, which the bridge allows only with --allow-eval (allowEval)` };
      }
      if (DATA_COMMANDS.has(name) || allowAdmin) return undefined;
      return { status: 403, message: `ERR command '${name}' is not allowed through the bridge: admin and unlisted commands need --allow-admin (allowAdmin)` };
    },
  };
}

function notOwnScript(name: string): Refusal {
  return { status: 403, message: `ERR '${name}' of a script that is not one of cachette's stores' own: other scripts need --allow-eval (allowEval)` };
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
