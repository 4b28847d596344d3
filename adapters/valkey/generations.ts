/**
 * The valkey store's tag-generation capabilities (Store.readWithGenerations and
 * Store.writeGenerations): each one script, sent on the store's connection like any other command,
 * so a tagged read is one round trip and keeps its place among the store's other commands.
 */
import type { GenerationRead, GenerationReadResult, GenerationWrite } from '../../src/store/types.ts';
import type { Route } from './channel.ts';
import { generationScriptKeys, parseTagStates, writeGenerationsArgs } from '../shared/redis-protocol.ts';
import type { RespValue } from './resp/parser.ts';
import { CANNOT_ANSWER, isBulkOrNil, isInteger } from './replies.ts';
import type { Round } from './round.ts';
import { READ_WITH_GENERATIONS, sendScript, WRITE_GENERATIONS, type ScriptArg, type ScriptSupport } from './scripts.ts';

const EMPTY = new Uint8Array(0);

/** Sends Store.readWithGenerations as op 0 of `round`, on `route`. */
export function sendReadWithGenerations(route: Route, round: Round, support: ScriptSupport, read: GenerationRead): void {
  const args: ScriptArg[] = [read.keys.length, read.epoch];
  for (let i = 0; i < read.keys.length; i++) args.push(read.knownPrefixes?.[i] ?? EMPTY);
  sendScript(route, round, 0, support, READ_WITH_GENERATIONS, generationScriptKeys(read.keys, read.tags), args, (value) => decodeRead(value, read));
}

/** Sends Store.writeGenerations as op 0 of `round`, on `route`. */
export function sendWriteGenerations(route: Route, round: Round, support: ScriptSupport, write: GenerationWrite): void {
  sendScript(route, round, 0, support, WRITE_GENERATIONS, generationScriptKeys([], write.tags), writeGenerationsArgs(write), (value) => (isInteger(value) ? undefined : CANNOT_ANSWER));
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
