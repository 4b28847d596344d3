/**
 * Store.readWithGenerations, Store.writeGenerations and Store.expireEntries for stores that can run them as one
 * synchronous step over their own cells (memory in one turn of the event loop, SQLite inside
 * one transaction). The one TypeScript definition of these semantics: the Redis scripts in
 * redis-protocol.ts and the engine's fallback (src/cache/path/generations.ts) are held to it by
 * test/store/layout-agreement.test.ts.
 * Generations are decimal counters (so `incr` works on them); a fence is a small JSON record of
 * tokens and their expiry times, kept under its key with a TTL as long as its last token's.
 */
import { formatCounter, parseCounter } from '../../src/store/layout/counter.ts';
import { staledEnvelope } from '../../src/store/layout/envelope.ts';
import { softMovesIn, softRecord } from '../../src/store/layout/soft-record.ts';
import type { ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, TagKeys, TagState } from '../../src/store/types.ts';
import { sameBytes } from './same-bytes.ts';

/** The cells a store exposes to these functions, read and written within one atomic step. */
export interface Cells {
  /** The live bytes under `key`, or undefined. */
  read(key: string): Uint8Array | undefined;
  /** Stores `value` under `key`; `ttlMs` undefined means no expiry. */
  write(key: string, value: Uint8Array, ttlMs?: number): void;
  /** Removes `key`. */
  remove(key: string): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Whether a read needs to create a counter (a write): a store that reads in a cheaper
 * read-only step first asks this, and takes a write step only when it must.
 */
export function missingGeneration(cells: Pick<Cells, 'read'>, tags: readonly TagKeys[]): boolean {
  return tags.some((tag) => cells.read(tag.generation) === undefined);
}

/** Store.readWithGenerations over `cells` at time `now` (the store's clock, for fence expiry only). */
export function readGenerationsIn(cells: Cells, read: GenerationRead, now: number): GenerationReadResult {
  const values = read.keys.map((key, i): Uint8Array | 'unchanged' | undefined => {
    const value = cells.read(key);
    const known = read.knownPrefixes?.[i];
    if (value && known && value.length >= known.length && sameBytes(value.subarray(0, known.length), known)) return 'unchanged';
    return value;
  });
  const tags = read.tags.map((tag): TagState => {
    let bytes = cells.read(tag.generation);
    if (bytes === undefined) {
      bytes = formatCounter(read.epoch);
      cells.write(tag.generation, bytes);
    }
    const generation = parseCounter(bytes, tag.generation);
    const fenced = liveTokens(cells, tag.fence, now).size > 0;
    const soft = softMovesIn(cells.read(tag.soft), generation);
    return soft === undefined ? { generation, fenced } : { generation, fenced, soft };
  });
  return { values, tags };
}

/** Store.writeGenerations over `cells` at time `now`. */
export function writeGenerationsIn(cells: Cells, write: GenerationWrite, now: number): void {
  for (const tag of write.tags) {
    if (write.action === 'hold') {
      const tokens = liveTokens(cells, tag.fence, now);
      tokens.set(write.token ?? '', now + (write.ttlMs ?? 1));
      saveTokens(cells, tag.fence, tokens, now);
    }
    if (write.action !== 'release') {
      const bytes = cells.read(tag.generation);
      const before = bytes === undefined ? undefined : parseCounter(bytes, tag.generation);
      cells.write(tag.generation, formatCounter(before === undefined ? write.epoch : before + 1));
      // A soft move of an existing counter extends the run of soft moves that ends at `before`, or starts one there.
      if (write.action === 'soft' && before !== undefined) cells.write(tag.soft, softRecord(cells.read(tag.soft), before, write.now ?? 0));
    }
    if (write.action === 'commit' || write.action === 'release') {
      const tokens = liveTokens(cells, tag.fence, now);
      if (tokens.delete(write.token ?? '')) saveTokens(cells, tag.fence, tokens, now);
    }
  }
}

/** The fence's tokens whose expiry is still ahead of `now`. A record that does not parse counts as empty. */
function liveTokens(cells: Cells, key: string, now: number): Map<string, number> {
  const tokens = new Map<string, number>();
  const bytes = cells.read(key);
  if (bytes === undefined) return tokens;
  let record: unknown;
  try {
    record = JSON.parse(decoder.decode(bytes));
  } catch {
    return tokens;
  }
  if (typeof record !== 'object' || record === null) return tokens;
  for (const [token, expiresAt] of Object.entries(record)) if (typeof expiresAt === 'number' && expiresAt > now) tokens.set(token, expiresAt);
  return tokens;
}

function saveTokens(cells: Cells, key: string, tokens: Map<string, number>, now: number): void {
  if (tokens.size === 0) {
    cells.remove(key);
    return;
  }
  const last = Math.max(...tokens.values());
  cells.write(key, encoder.encode(JSON.stringify(Object.fromEntries(tokens))), last - now);
}

/** Store.expireEntries over `cells`: every envelope fresh at `request.now` rewritten to turn stale then (src/codec/envelope.ts). */
export function expireEntriesIn(cells: Cells, request: ExpireRequest): number {
  let marked = 0;
  for (const key of request.keys) {
    const bytes = cells.read(key);
    const staled = bytes === undefined ? undefined : staledEnvelope(bytes, request.now);
    if (staled === undefined) continue;
    cells.write(key, staled.bytes, staled.ttlMs);
    marked++;
  }
  return marked;
}
