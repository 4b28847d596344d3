/**
 * The server-side scripts the Valkey stores register on their client (iovalkey sends EVALSHA and
 * falls back to EVAL once per node), typed as the commands they become, and what the stores
 * share about when to use them. The one-key scripts run unchanged on a cluster; the many-key
 * ones (a run of increments, deletes or expiring writes) are sent per slot there, since a script
 * may only touch keys of one slot.
 */
import type { Cluster, Redis as Valkey } from 'iovalkey';
import type { StoreEntry, StoreOp } from '../../src/store/types.ts';
import { COMPARE_AND_DELETE_LUA, DELETE_EACH_LUA, INCR_MANY_LUA, INCR_WITH_TTL_LUA, positiveMs, SET_MANY_LUA } from '../shared/redis-protocol.ts';
import { refusal, toBuffer, toRefusal } from './replies.ts';

/** The commands {@link defineStoreScripts} adds to a client. */
export interface StoreScripts {
  cachetteCompareAndDelete(key: string, expected: Buffer): Promise<number>;
  cachetteIncrPx(key: string, by: number, ttlMs: number): Promise<number>;
  /** Scripts without a fixed key count take it as their first argument. */
  cachetteIncrMany(...args: Array<string | number>): Promise<Array<number | Error>>;
  cachetteDeleteEach(...args: Array<string | number>): Promise<number[]>;
  cachetteSetMany(...args: Array<string | number | Buffer>): Promise<number>;
}

/** A single-server client with the store's scripts. */
export type ValkeyWithScripts = Valkey & StoreScripts;

/** A client of either kind with the store's scripts. */
type ClientWithScripts = (Valkey | Cluster) & StoreScripts;

/** SET, with PX when the entry expires. */
export function setCommand(client: Valkey | Cluster, key: string, value: Uint8Array, ttlMs: number | undefined): Promise<unknown> {
  return ttlMs === undefined ? client.set(key, toBuffer(value)) : client.set(key, toBuffer(value), 'PX', positiveMs(ttlMs));
}

/** SET NX (with PX when the entry expires): true when the key was absent and is now set. */
export async function addCommand(client: Valkey | Cluster, key: string, value: Uint8Array, ttlMs: number | undefined): Promise<boolean> {
  const reply = await (ttlMs === undefined ? client.set(key, toBuffer(value), 'NX') : client.set(key, toBuffer(value), 'PX', positiveMs(ttlMs), 'NX')).catch(refusal);
  return reply === 'OK';
}

/**
 * INCRBY; with a TTL, one script that creates the counter with its TTL only when it is new, then
 * increments it, atomically and in one command (one key, so one node on a cluster).
 */
export function incrCommand(client: ClientWithScripts, key: string, by: number, ttlMs: number | undefined): Promise<number> {
  return ttlMs === undefined ? client.incrby(key, by) : client.cachetteIncrPx(key, by, positiveMs(ttlMs));
}

/** Registers the store's scripts on `client` (defining them again on a shared client is harmless). */
export function defineStoreScripts<C extends Valkey | Cluster>(client: C): C & StoreScripts {
  client.defineCommand('cachetteCompareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE_LUA });
  client.defineCommand('cachetteIncrPx', { numberOfKeys: 1, lua: INCR_WITH_TTL_LUA });
  client.defineCommand('cachetteIncrMany', { lua: INCR_MANY_LUA });
  client.defineCommand('cachetteDeleteEach', { lua: DELETE_EACH_LUA });
  client.defineCommand('cachetteSetMany', { lua: SET_MANY_LUA });
  return client as C & StoreScripts;
}

/**
 * From this many increments, deletes or expiring writes in a row, one script replaces one
 * command per op: the server runs one command instead of many, and the client builds one
 * command and parses one reply. Below it, plain commands cost less than a script call.
 */
export const SCRIPT_RUN = 3;

/** A server that refuses scripts (disabled, or not allowed to this user): plain commands from then on. */
const NO_SCRIPTS = /unknown command|NOPERM|not allowed|disabled/i;

/** Whether a store may still send scripts: false for good once the server refused one. */
export class ScriptSupport {
  #accepted = true;

  /** True while the server has not refused a script. */
  get accepted(): boolean {
    return this.#accepted;
  }

  /** Passes a script call's outcome on, switching to plain commands when the server refused scripts. */
  watch<T>(call: Promise<T>): Promise<T> {
    return call.catch((error: unknown) => {
      if (error instanceof Error && NO_SCRIPTS.test(error.message)) this.#accepted = false;
      throw error;
    });
  }
}

/** An increment inside a pipeline. */
export type IncrOp = Extract<StoreOp, { kind: 'incr' }>;

/** The arguments of `cachetteIncrMany` for `incrs`, in order: the key count, the keys, then step and TTL (0: none) per key. */
export function incrManyArgs(incrs: readonly IncrOp[]): Array<string | number> {
  const args: Array<string | number> = [incrs.length];
  for (const op of incrs) args.push(op.key);
  for (const op of incrs) args.push(op.by, op.ttlMs === undefined ? 0 : positiveMs(op.ttlMs));
  return args;
}

/** One counter's reply of `cachetteIncrMany` as its op's result: the count, or the refusal (a counter that is not an integer). */
export function incrReply(reply: number | Error | undefined): number | Error {
  return reply instanceof Error ? toRefusal(reply) : Number(reply);
}

/** True when `entries` go as one `cachetteSetMany` rather than MSET and SET PX commands. */
export function wantsSetScript(entries: readonly StoreEntry[], scripts: ScriptSupport): boolean {
  return entries.length >= SCRIPT_RUN && scripts.accepted && entries.some((e) => e.ttlMs !== undefined);
}

/** The arguments of `cachetteSetMany` for `entries`: the key count, the keys, then value and TTL (0: none) per key. */
export function setManyArgs(entries: readonly StoreEntry[]): Array<string | number | Buffer> {
  const args: Array<string | number | Buffer> = [entries.length];
  for (const e of entries) args.push(e.key);
  for (const e of entries) args.push(toBuffer(e.value), e.ttlMs === undefined ? 0 : positiveMs(e.ttlMs));
  return args;
}
