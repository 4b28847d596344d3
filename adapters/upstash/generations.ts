/**
 * The upstash store's tag-generation capabilities: the same scripts as the valkey store's
 * (adapters/shared/redis-protocol.ts), sent by SHA with the SDK's Script (EVALSHA, then EVAL
 * once if the server does not know it), one HTTP request each. Values live on the server as
 * text (value-encoding.ts), so a known prefix is compared in that encoding: base64 of a prefix
 * whose length is a multiple of 3 is a prefix of the value's base64.
 */
import type { Redis } from '@upstash/redis/cloudflare';
import type { GenerationRead, GenerationReadResult, GenerationWrite } from '../../src/store/types.ts';
import { generationScriptKeys, parseTagStates, positiveMs, READ_WITH_GENERATIONS_LUA, WRITE_GENERATIONS_LUA } from '../shared/redis-protocol.ts';
import { decodeValue, encodeValue } from './value-encoding.ts';

/** The two scripts, bound to one client. */
export interface GenerationScripts {
  read(read: GenerationRead): Promise<GenerationReadResult>;
  write(write: GenerationWrite): Promise<void>;
}

/** Binds the scripts to `client`. */
export function generationScripts(client: Redis): GenerationScripts {
  const reader = client.createScript<unknown[]>(READ_WITH_GENERATIONS_LUA);
  const writer = client.createScript<unknown>(WRITE_GENERATIONS_LUA);
  return {
    async read(read) {
      const args = [String(read.keys.length), String(read.epoch)];
      for (let i = 0; i < read.keys.length; i++) args.push(encodedPrefix(read.knownPrefixes?.[i]));
      const reply = await reader.exec(generationScriptKeys(read.keys, read.tags), args);
      // 1 means "unchanged" only where a prefix was sent: a client that parses JSON replies turns a stored "1" into 1 too.
      const values = read.keys.map((_, i) => (reply[i] === 1 && args[2 + i] !== '' ? 'unchanged' : decodeValue(reply[i])));
      return { values, tags: parseTagStates(reply, read.keys.length, read.tags.length) };
    },
    async write(write) {
      if (write.tags.length === 0) return;
      await writer.exec(generationScriptKeys([], write.tags), [write.action, String(write.epoch), write.token ?? '', String(positiveMs(write.ttlMs ?? 1))]);
    },
  };
}

/** The stored text every value starting with `prefix` starts with ('' when there is no prefix to compare). */
function encodedPrefix(prefix: Uint8Array | undefined): string {
  if (!prefix || prefix.length < 3) return '';
  return encodeValue(prefix.subarray(0, prefix.length - (prefix.length % 3)));
}
