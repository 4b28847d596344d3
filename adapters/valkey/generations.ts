/**
 * The valkey stores' tag-generation capabilities (Store.readWithGenerations and
 * Store.writeGenerations): the scripts of adapters/shared/redis-protocol.ts (the one format of
 * generations, fences and soft records, shared with upstash), sent on the store's connections
 * like any other command.
 *
 * A script may only name keys of one slot on a cluster, so a call is split by slot: the three
 * keys of a tag share a hash tag (src/cache/key-space.ts), so each tag is read and moved
 * atomically in its slot's script, which is what the contract asks (atomically per tag). On one
 * server every key has one slot here: a tagged read is one script, one round trip, in its place
 * among the store's other commands. On a cluster the scripts of one call leave in one write to
 * each master; the entries of a read are then read apart from the tags in other slots, which
 * the engine allows for (an entry records the generations it was filled at, and any move of
 * one since makes it a miss, whichever was read first).
 */
import type { GenerationRead, GenerationReadResult, GenerationWrite, TagKeys, TagState } from '../../src/store/types.ts';
import type { Route } from './channel.ts';
import { generationScriptKeys, parseTagStates, writeGenerationsArgs } from '../shared/redis-protocol.ts';
import type { RespValue } from './resp/parser.ts';
import { CANNOT_ANSWER, isBulkOrNil, isInteger } from './replies.ts';
import type { Round } from './round.ts';
import { READ_WITH_GENERATIONS, sendScript, WRITE_GENERATIONS, type ScriptArg, type ScriptSupport } from './scripts.ts';

const EMPTY = new Uint8Array(0);

/** The share of a read that one script carries: a read of its own, and where its keys and tags sit in the whole. */
export interface ReadPart {
  readonly read: GenerationRead;
  /** Per key of the part, its index in the whole read. */
  readonly keys: number[];
  /** Per tag of the part, its index in the whole read. */
  readonly tags: number[];
}

/** Splits `read` into one part per slot (`slotOf` of an entry key, of a tag's generation key); a read of nothing is one part. */
export function splitRead(read: GenerationRead, slotOf: (key: string) => number): ReadPart[] {
  const bySlot = new Map<number, { keys: number[]; tags: number[] }>();
  const partOf = (slot: number) => {
    let part = bySlot.get(slot);
    if (part === undefined) bySlot.set(slot, (part = { keys: [], tags: [] }));
    return part;
  };
  for (let i = 0; i < read.keys.length; i++) partOf(slotOf(read.keys[i]!)).keys.push(i);
  for (let i = 0; i < read.tags.length; i++) partOf(slotOf(read.tags[i]!.generation)).tags.push(i);
  if (bySlot.size <= 1) return [{ read, keys: read.keys.map((_, i) => i), tags: read.tags.map((_, i) => i) }];
  return [...bySlot.values()].map(({ keys, tags }) => ({
    read: {
      keys: keys.map((i) => read.keys[i]!),
      ...(read.knownPrefixes === undefined ? {} : { knownPrefixes: keys.map((i) => read.knownPrefixes![i]) }),
      tags: tags.map((i) => read.tags[i]!),
      epoch: read.epoch,
    },
    keys,
    tags,
  }));
}

/** The answer of the whole read from its parts' answers (in the order of `parts`). */
export function joinRead(read: GenerationRead, parts: readonly ReadPart[], answers: readonly GenerationReadResult[]): GenerationReadResult {
  const values = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
  const tags = new Array<TagState>(read.tags.length);
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const answer = answers[p]!;
    for (let i = 0; i < part.keys.length; i++) values[part.keys[i]!] = answer.values[i];
    for (let i = 0; i < part.tags.length; i++) tags[part.tags[i]!] = answer.tags[i]!;
  }
  return { values, tags };
}

/** Splits `write` into one write per slot of its tags' keys. */
export function splitWrite(write: GenerationWrite, slotOf: (key: string) => number): GenerationWrite[] {
  const bySlot = new Map<number, TagKeys[]>();
  for (const tag of write.tags) {
    const slot = slotOf(tag.generation);
    const tags = bySlot.get(slot);
    if (tags === undefined) bySlot.set(slot, [tag]);
    else tags.push(tag);
  }
  if (bySlot.size <= 1) return [write];
  return [...bySlot.values()].map((tags) => ({ ...write, tags }));
}

/** The key whose route a part's script takes: any key it names (all share a slot). */
export function routeKeyOf(read: GenerationRead): string {
  return read.keys[0] ?? read.tags[0]?.generation ?? '';
}

/** Sends Store.readWithGenerations for `read` (one slot's) as op `at` of `round`, on `route`. */
export function sendReadWithGenerations(route: Route, round: Round, at: number, support: ScriptSupport, read: GenerationRead): void {
  const args: ScriptArg[] = [read.keys.length, read.epoch];
  for (let i = 0; i < read.keys.length; i++) args.push(read.knownPrefixes?.[i] ?? EMPTY);
  sendScript(route, round, at, support, READ_WITH_GENERATIONS, generationScriptKeys(read.keys, read.tags), args, (value) => decodeRead(value, read));
}

/** Sends Store.writeGenerations for `write` (one slot's) as op `at` of `round`, on `route`. */
export function sendWriteGenerations(route: Route, round: Round, at: number, support: ScriptSupport, write: GenerationWrite): void {
  sendScript(route, round, at, support, WRITE_GENERATIONS, generationScriptKeys([], write.tags), writeGenerationsArgs(write), (value) => (isInteger(value) ? undefined : CANNOT_ANSWER));
}

/**
 * The script's reply as the contract's answer: per key its bytes, 'unchanged' or a hole; per tag
 * its state. A reply not of the script's shape (per key a bulk string, nil or 1; per tag a bulk
 * generation, an integer and a bulk string or nil) cannot be its answer.
 */
function decodeRead(value: RespValue, read: GenerationRead): GenerationReadResult | typeof CANNOT_ANSWER {
  const n = read.keys.length;
  if (!Array.isArray(value) || value.length !== n + 3 * read.tags.length) return CANNOT_ANSWER;
  for (let i = 0; i < n; i++) if (!isBulkOrNil(value[i]) && value[i] !== 1) return CANNOT_ANSWER;
  for (let i = n; i < value.length; i += 3) if (!Buffer.isBuffer(value[i]) || !isInteger(value[i + 1]!) || !isBulkOrNil(value[i + 2])) return CANNOT_ANSWER;
  const reply = value;
  const values = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
  for (let i = 0; i < values.length; i++) {
    const slot = reply[i];
    values[i] = slot === 1 ? 'unchanged' : slot instanceof Uint8Array ? slot : undefined;
  }
  return { values, tags: parseTagStates(reply, read.keys.length, read.tags.length) };
}
