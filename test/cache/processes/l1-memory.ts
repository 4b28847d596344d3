/**
 * The memory an L1 really retains over a real server (test/cache/l1-memory.test.ts), measured
 * in a process of its own started with --expose-gc: `process.memoryUsage().arrayBuffers` after
 * full collections, before and after filling the L1, not the bytes the L1 counts.
 *
 * Each small entry is read in the same tick as a large entry the L1 does not keep (larger than
 * its maxBytes), so that both replies arrive in one socket chunk: anything kept that views the
 * small reply (a prefix made with Buffer#slice, a raw payload, a CBOR byte string) would keep
 * the whole chunk alive; so would the values a caller keeps, without an L1. Prints one JSON
 * line: the growth in bytes, per tier (or `caller`) and value kind.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../../src/index.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const [redisUrl, namespace] = process.argv.slice(2) as [string, string];
/** Entries read through the L1, each next to the large one. */
const ENTRIES = 200;
/** The L1's byte bound: 800 small entries do not all fit, the large one never does. */
const MAX_BYTES = 48 * 1024;
const LARGE_BYTES = 56 * 1024;

const kinds = {
  /** A plain JSON value: what is kept beyond the decoded value is the stored prefix. */
  json: (i: number) => ({ id: i, name: `entry ${i}` }),
  /** CBOR with a byte string and a typed array, which a decoder may return as views. */
  cbor: (i: number) => ({ id: i, bytes: new Uint8Array(16).fill(i & 0xff), floats: new Float64Array([i, i / 2]) }),
  /** Raw bytes: the value is the payload itself. */
  raw: (i: number) => new Uint8Array(24).fill(i & 0xff),
} as const;

async function settled(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

/** Reads `probe` until a hit transfers nothing (the tracking connection is live), a bounded number of times. */
async function untilServedFromMemory(cache: Cache, probe: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    await cache.get(probe);
    const before = cache.stats().bytesRead;
    await cache.get(probe);
    if (cache.stats().bytesRead === before) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the L1 never served from memory');
}

const store = valkeyStore(redisUrl);
const results: Record<string, number> = {};
const large = new Uint8Array(LARGE_BYTES).map(() => Math.floor(Math.random() * 256)); // incompressible
// 'caller': no L1; the caller keeps every value it got (as a map of its own would).
for (const consistency of ['strict', 'tracking', 'caller'] as const) {
  for (const [kind, make] of Object.entries(kinds)) {
    const space = `${namespace}-${consistency}-${kind}`;
    const serializer = kind === 'raw' ? 'raw' : 'auto';
    const writer = createCache({ store, namespace: space, serializer, closeStore: false, logger: false });
    const l1 = consistency === 'caller' ? undefined : { consistency, maxEntries: 10_000, maxBytes: MAX_BYTES };
    const cache = createCache({ store, namespace: space, serializer, closeStore: false, logger: false, l1 });
    const kept: unknown[] = [];
    for (let i = 0; i < ENTRIES; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => writer.set(`k${i + j}`, make(i + j))));
    await writer.set('large', large);
    if (consistency === 'tracking') await untilServedFromMemory(cache, 'k0');
    const before = await settled();
    for (let i = 0; i < ENTRIES; i++) {
      const [value] = await Promise.all([cache.get(`k${i}`), cache.get('large')]);
      if (value === undefined) throw new Error(`k${i} was not read back`);
      if (consistency === 'caller') kept.push(value);
    }
    results[`${consistency} ${kind}`] = (await settled()) - before;
    if (kept.length !== (consistency === 'caller' ? ENTRIES : 0)) throw new Error('the values were not kept');
    await cache.clear();
    await cache.close();
    await writer.close();
  }
}
await store.close();
process.stdout.write(`${JSON.stringify({ maxBytes: MAX_BYTES, retained: results })}\n`);
