/**
 * The server-side scripts of the Valkey stores, for what needs atomicity and nothing else: an
 * increment that gives a counter its TTL only when it creates it, releasing a lease by token,
 * and the tag generations. Everything else goes as native commands (cheaper for the server:
 * ~1.2 µs per operation inside EVALSHA against 0.07–0.55 µs for DEL, INCRBY, SET).
 *
 * A script is sent as EVAL the first time a connection meets it (which loads it on the server),
 * then as EVALSHA; a NOSCRIPT (the server restarted, or its scripts were flushed) resends that
 * one command as EVAL. A server that refuses scripts (disabled, or NOPERM for this user) is
 * remembered: from then on the stores use plain commands where they have them.
 */
import { createHash } from 'node:crypto';
import { COMPARE_AND_DELETE_LUA, EXPIRE_ENTRIES_LUA, INCR_WITH_TTL_LUA, READ_WITH_GENERATIONS_LUA, WRITE_GENERATIONS_LUA } from '../shared/redis-protocol.ts';
import { expectOn, type Channel, type Route } from './channel.ts';

import { bulk, type RespEncoder } from './resp/encoder.ts';
import type { RespValue } from './resp/parser.ts';
import { CommandSink, decodeInto, type Round } from './round.ts';

/** A Lua script and its SHA-1, computed once. */
export class Script {
  readonly lua: string;
  readonly sha: string;

  constructor(lua: string) {
    this.lua = lua;
    this.sha = createHash('sha1').update(lua).digest('hex');
  }
}

/** SET NX PX then INCRBY, atomically: see INCR_WITH_TTL_LUA. */
export const INCR_WITH_TTL = new Script(INCR_WITH_TTL_LUA);
/** GET then DEL while it still holds the token: see COMPARE_AND_DELETE_LUA. */
export const COMPARE_AND_DELETE = new Script(COMPARE_AND_DELETE_LUA);
/** Store.readWithGenerations. */
export const READ_WITH_GENERATIONS = new Script(READ_WITH_GENERATIONS_LUA);
/** Store.writeGenerations. */
export const WRITE_GENERATIONS = new Script(WRITE_GENERATIONS_LUA);
/** Store.expireEntries. */
export const EXPIRE_ENTRIES = new Script(EXPIRE_ENTRIES_LUA);

/** A script argument. */
export type ScriptArg = string | number | Uint8Array;

/** Scripts each channel's server is known to hold (a connection that answered their EVAL or EVALSHA). */
const loaded = new WeakMap<Channel, Set<string>>();

const EVAL = bulk('EVAL');
const EVALSHA = bulk('EVALSHA');

/** A server that refuses scripts (disabled, or not allowed to this user): plain commands from then on. */
const NO_SCRIPTS = /unknown command|NOPERM|not allowed|disabled/i;

/** Whether a store may still send scripts: false for good once the server refused one. */
export class ScriptSupport {
  #accepted = true;

  /** True while the server has not refused a script. */
  get accepted(): boolean {
    return this.#accepted;
  }

  /** Notes a script's failure: the server refusing scripts switches the store to plain commands. */
  failed(error: Error): void {
    if (NO_SCRIPTS.test(error.message)) this.#accepted = false;
  }
}

/**
 * Sends `script` on `route` with `keys` and `args`; `decode` turns its reply into the result
 * of op `at` of `round` (a throw fails that op), or says CANNOT_ANSWER (replies.ts) for a reply
 * of a type the script never returns.
 */
export function sendScript(
  route: Route,
  round: Round,
  at: number,
  support: ScriptSupport,
  script: Script,
  keys: readonly string[],
  args: readonly ScriptArg[],
  decode: (value: RespValue) => unknown,
): void {
  new ScriptSink(round, at, support, route, script, keys, args, decode).send(loaded.get(route.channel)?.has(script.sha) === true);
}

/** A script call's reply: decoded into its op's slot; NOSCRIPT resent once as EVAL. */
export class ScriptSink extends CommandSink {
  readonly #at: number;
  readonly #support: ScriptSupport;
  readonly #route: Route;
  readonly #script: Script;
  readonly #keys: readonly string[];
  readonly #args: readonly ScriptArg[];
  readonly #decode: (value: RespValue) => unknown;
  #bySha = false;

  constructor(round: Round, at: number, support: ScriptSupport, route: Route, script: Script, keys: readonly string[], args: readonly ScriptArg[], decode: (value: RespValue) => unknown) {
    super('evalsha', round);
    this.#at = at;
    this.#support = support;
    this.#route = route;
    this.#script = script;
    this.#keys = keys;
    this.#args = args;
    this.#decode = decode;
  }

  /** Encodes the call (EVALSHA when `bySha`, else EVAL with the script's text) and expects its reply; the caller flushes. */
  send(bySha: boolean): void {
    this.#bySha = bySha;
    const encoder = this.#route.channel.encoder;
    const start = encoder.size;
    encodeScriptCall(encoder, bySha ? this.#script.sha : this.#script.lua, bySha, this.#keys, this.#args);
    expectOn(this.#route, this, start);
  }

  override reject(error: Error): void {
    if (this.#bySha && error.name === 'ReplyError' && error.message.startsWith('NOSCRIPT')) {
      // The server lost its scripts: load this one again with EVAL, in its place.
      loaded.get(this.#route.channel)?.delete(this.#script.sha);
      this.send(false);
      this.#route.channel.flush();
      return;
    }
    super.reject(error);
  }

  protected onReply(value: RespValue): boolean {
    let known = loaded.get(this.#route.channel);
    if (known === undefined) loaded.set(this.#route.channel, (known = new Set()));
    known.add(this.#script.sha);
    return decodeInto(this.round, this.#at, this.#decode, value);
  }

  protected onError(error: Error): void {
    this.#support.failed(error);
    this.round.fail(this.#at, this.#at + 1, error);
  }
}

/** EVAL/EVALSHA <script or sha> <numkeys> <keys…> <args…>. */
function encodeScriptCall(encoder: RespEncoder, body: string, bySha: boolean, keys: readonly string[], args: readonly ScriptArg[]): void {
  encoder.array(3 + keys.length + args.length);
  encoder.raw(bySha ? EVALSHA : EVAL);
  encoder.string(body);
  encoder.number(keys.length);
  for (const key of keys) encoder.string(key);
  for (const arg of args) {
    if (typeof arg === 'string') encoder.string(arg);
    else if (typeof arg === 'number') encoder.number(arg);
    else encoder.bytes(arg);
  }
}
