/**
 * The native commands of the Valkey stores' hot path, encoded straight into a channel's encoder:
 * GET, MGET, SET (with PX), MSET, DEL, INCRBY, SET NX. Fixed parts are encoded once.
 */
import type { StoreEntry, StoreOp } from '../../src/store/types.ts';
import { positiveMs } from '../shared/redis-protocol.ts';
import { bulk, commandHead, type RespEncoder } from './resp/encoder.ts';

const GET = commandHead('GET', 2);
const SET = commandHead('SET', 3);
const SET_PX = commandHead('SET', 5);
const INCRBY = commandHead('INCRBY', 3);
const MGET = bulk('MGET');
const MSET = bulk('MSET');
const DEL = bulk('DEL');
const SET_NAME = bulk('SET');
const PX = bulk('PX');
const NX = bulk('NX');

/** GET key. */
export function encodeGet(encoder: RespEncoder, key: string): void {
  encoder.raw(GET);
  encoder.string(key);
}

/** MGET with `keys`. */
export function encodeMget(encoder: RespEncoder, keys: readonly string[]): void {
  encoder.array(keys.length + 1);
  encoder.raw(MGET);
  for (const key of keys) encoder.string(key);
}

/** MGET with every key of the reads `ops[from, to)` in order, `count` of them. */
export function encodeReadRun(encoder: RespEncoder, ops: readonly StoreOp[], from: number, to: number, count: number): void {
  encoder.array(count + 1);
  encoder.raw(MGET);
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    if (op.kind === 'get') encoder.string(op.key);
    else if (op.kind === 'getMany') for (const key of op.keys) encoder.string(key);
  }
}

/** SET key value, with PX when the entry expires. */
export function encodeSet(encoder: RespEncoder, entry: StoreEntry): void {
  if (entry.ttlMs === undefined) {
    encoder.raw(SET);
    encoder.string(entry.key);
    encoder.bytes(entry.value);
    return;
  }
  encoder.raw(SET_PX);
  encoder.string(entry.key);
  encoder.bytes(entry.value);
  encoder.raw(PX);
  encoder.number(positiveMs(entry.ttlMs));
}

/** MSET with `entries[from, to)` (none of which expires). */
export function encodeMset(encoder: RespEncoder, entries: readonly StoreEntry[], from: number, to: number): void {
  encoder.array(1 + 2 * (to - from));
  encoder.raw(MSET);
  for (let i = from; i < to; i++) {
    encoder.string(entries[i]!.key);
    encoder.bytes(entries[i]!.value);
  }
}

/** DEL with `keys`. */
export function encodeDel(encoder: RespEncoder, keys: readonly string[]): void {
  encoder.array(keys.length + 1);
  encoder.raw(DEL);
  for (const key of keys) encoder.string(key);
}

/** INCRBY key by. */
export function encodeIncrBy(encoder: RespEncoder, key: string, by: number): void {
  encoder.raw(INCRBY);
  encoder.string(key);
  encoder.number(by);
}

/** SET key value NX, with PX when it expires: answered OK when it was absent and is now set, nil when it existed. */
export function encodeSetIfAbsent(encoder: RespEncoder, key: string, value: Uint8Array, ttlMs: number | undefined): void {
  encoder.array(ttlMs === undefined ? 4 : 6);
  encoder.raw(SET_NAME);
  encoder.string(key);
  encoder.bytes(value);
  if (ttlMs !== undefined) {
    encoder.raw(PX);
    encoder.number(positiveMs(ttlMs));
  }
  encoder.raw(NX);
}
