/**
 * The native commands of the Valkey stores' hot path, encoded straight into a channel's encoder:
 * GET, MGET, SET (with PX), MSET, DEL, INCRBY, SET NX. Fixed parts are encoded once.
 *
 * A command names at most {@link MAX_KEYS_PER_COMMAND} keys: a caller's getMany, setMany or
 * delete of more becomes several commands, so that no reply outgrows what the parser accepts
 * (resp/parser.ts) and no command what a server takes in one piece.
 */
import { TextEntry } from '../../src/store/text-entry.ts';
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

/** Most keys one MGET, MSET, DEL or script names: a 64 Ki-value MGET reply stays far inside the parser's bounds (1 Mi elements, 1 GiB). */
export const MAX_KEYS_PER_COMMAND = 64 * 1024;

/** `keys` in runs of at most MAX_KEYS_PER_COMMAND (itself when it is one run). */
export function pieces(keys: readonly string[]): Array<readonly string[]> {
  if (keys.length <= MAX_KEYS_PER_COMMAND) return [keys];
  const runs: string[][] = [];
  for (let from = 0; from < keys.length; from += MAX_KEYS_PER_COMMAND) runs.push(keys.slice(from, from + MAX_KEYS_PER_COMMAND));
  return runs;
}

/** GET key. */
export function encodeGet(encoder: RespEncoder, key: string): void {
  encoder.raw(GET);
  encoder.string(key);
}

/** MGET with `keys[from, to)`. */
export function encodeMget(encoder: RespEncoder, keys: readonly string[], from = 0, to = keys.length): void {
  encoder.array(to - from + 1);
  encoder.raw(MGET);
  for (let i = from; i < to; i++) encoder.string(keys[i]!);
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

/** An entry's value: a {@link TextEntry}'s parts written straight into the encoder, else its bytes. */
function encodeValue(encoder: RespEncoder, entry: StoreEntry): void {
  if (entry instanceof TextEntry) encoder.headed(entry.parts);
  else encoder.bytes(entry.value);
}

/** SET key value, with PX when the entry expires. */
export function encodeSet(encoder: RespEncoder, entry: StoreEntry): void {
  if (entry.ttlMs === undefined) {
    encoder.raw(SET);
    encoder.string(entry.key);
    encodeValue(encoder, entry);
    return;
  }
  encoder.raw(SET_PX);
  encoder.string(entry.key);
  encodeValue(encoder, entry);
  encoder.raw(PX);
  encoder.number(positiveMs(entry.ttlMs));
}

/** MSET with `entries[from, to)` (none of which expires). */
export function encodeMset(encoder: RespEncoder, entries: readonly StoreEntry[], from: number, to: number): void {
  encoder.array(1 + 2 * (to - from));
  encoder.raw(MSET);
  for (let i = from; i < to; i++) {
    encoder.string(entries[i]!.key);
    encodeValue(encoder, entries[i]!);
  }
}

/** DEL with `keys[from, to)`. */
export function encodeDel(encoder: RespEncoder, keys: readonly string[], from = 0, to = keys.length): void {
  encoder.array(to - from + 1);
  encoder.raw(DEL);
  for (let i = from; i < to; i++) encoder.string(keys[i]!);
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
