/**
 * The upstash store's tag-generation capabilities: the same scripts as the valkey store's
 * (adapters/shared/redis-protocol.ts), each one command of the tick's request. Values live on
 * the server as text (value-encoding.ts), so a known prefix is compared in that encoding:
 * base64 of a prefix whose length is a multiple of 3 is a prefix of the value's base64.
 */
import type { GenerationRead, GenerationReadResult, GenerationWrite } from '../../src/store/types.ts';
import { generationScriptKeys, parseTagStates, READ_WITH_GENERATIONS_LUA, WRITE_GENERATIONS_LUA, writeGenerationsArgs } from '../shared/redis-protocol.ts';
import type { RestCommand } from './commands.ts';
import { decodeValue, encodeValue } from './value-encoding.ts';

type ScriptCommand = Extract<RestCommand, { name: 'script' }>;

/** The read script's command for `read`. */
export function readGenerationsCommand(read: GenerationRead): ScriptCommand {
  const args = [String(read.keys.length), String(read.epoch)];
  for (let i = 0; i < read.keys.length; i++) args.push(encodedPrefix(read.knownPrefixes?.[i]));
  return { name: 'script', lua: READ_WITH_GENERATIONS_LUA, keys: generationScriptKeys(read.keys, read.tags), args };
}

/** What the read script answered to `command`. */
export function readGenerationsReply(read: GenerationRead, command: ScriptCommand, reply: unknown): GenerationReadResult {
  const values = reply as unknown[];
  // 1 means "unchanged" only where a prefix was sent: a client that parses JSON replies turns a stored "1" into 1 too.
  return {
    values: read.keys.map((_, i) => (values[i] === 1 && command.args[2 + i] !== '' ? 'unchanged' : decodeValue(values[i]))),
    tags: parseTagStates(values, read.keys.length, read.tags.length),
  };
}

/** The write script's command for `write` (which has tags). */
export function writeGenerationsCommand(write: GenerationWrite): ScriptCommand {
  return {
    name: 'script',
    lua: WRITE_GENERATIONS_LUA,
    keys: generationScriptKeys([], write.tags),
    args: writeGenerationsArgs(write),
  };
}

/** The stored text every value starting with `prefix` starts with ('' when there is no prefix to compare). */
function encodedPrefix(prefix: Uint8Array | undefined): string {
  if (!prefix || prefix.length < 3) return '';
  return encodeValue(prefix.subarray(0, prefix.length - (prefix.length % 3)));
}
