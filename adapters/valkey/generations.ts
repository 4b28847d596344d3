/**
 * The valkey store's tag-generation capabilities (Store.readWithGenerations and
 * Store.writeGenerations): each one script, run with EVALSHA on the store's one connection,
 * so a tagged read is one round trip and stays in order with the store's other commands.
 */
import type { Redis as Valkey } from 'iovalkey';
import type { GenerationRead, GenerationReadResult, GenerationWrite } from '../../src/store/types.ts';
import { generationScriptKeys, parseTagStates, positiveMs, READ_WITH_GENERATIONS_LUA, WRITE_GENERATIONS_LUA } from '../shared/redis-protocol.ts';

type WithGenerationScripts = Valkey & {
  cachetteReadGenerationsBuffer(numKeys: number, ...args: Array<string | Buffer | number>): Promise<unknown[]>;
  cachetteWriteGenerations(numKeys: number, ...args: Array<string | number>): Promise<number>;
};

const EMPTY = Buffer.alloc(0);

/** Registers the two scripts on `client` (iovalkey loads them by SHA on first use). */
export function defineGenerationScripts(client: Valkey): void {
  client.defineCommand('cachetteReadGenerations', { lua: READ_WITH_GENERATIONS_LUA });
  client.defineCommand('cachetteWriteGenerations', { lua: WRITE_GENERATIONS_LUA });
}

/** Store.readWithGenerations on `client`; error replies reject (the store maps them). */
export async function readWithGenerations(client: Valkey, read: GenerationRead): Promise<GenerationReadResult> {
  const keys = generationScriptKeys(read.keys, read.tags);
  const args: Array<string | Buffer | number> = [read.keys.length, read.epoch];
  for (let i = 0; i < read.keys.length; i++) {
    const known = read.knownPrefixes?.[i];
    args.push(known ? Buffer.from(known.buffer, known.byteOffset, known.byteLength) : EMPTY);
  }
  const reply = await (client as WithGenerationScripts).cachetteReadGenerationsBuffer(keys.length, ...keys, ...args);
  const values = new Array<Uint8Array | 'unchanged' | undefined>(read.keys.length);
  for (let i = 0; i < values.length; i++) {
    const slot = reply[i];
    values[i] = slot === 1 ? 'unchanged' : slot instanceof Uint8Array ? slot : undefined;
  }
  return { values, tags: parseTagStates(reply, read.keys.length, read.tags.length) };
}

/** Store.writeGenerations on `client`. */
export async function writeGenerations(client: Valkey, write: GenerationWrite): Promise<void> {
  if (write.tags.length === 0) return;
  const keys = generationScriptKeys([], write.tags);
  await (client as WithGenerationScripts).cachetteWriteGenerations(keys.length, ...keys, write.action, write.epoch, write.token ?? '', positiveMs(write.ttlMs ?? 1));
}
