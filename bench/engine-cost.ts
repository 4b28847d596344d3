/**
 * The engine's own CPU per call, with no I/O, piece by piece. Two stores: the in-process memory
 * store as it is (local: no batching, no timeouts, synchronous reads), and the same store
 * declared remote and ordered, as valkey is, so that the engine builds the path it builds for a
 * server: store handle → guard (timeouts, breakers) → batcher → generation layer. Each path row
 * adds one layer to the one above it, so the difference between two rows is what that layer
 * costs; the codec rows are one piece each (the envelope's header, the text decoding, JSON, the
 * 'auto' serializer's plain-value check), and the `cache.*` rows are the whole call.
 *
 * Synchronous pieces run in a plain loop; promise-returning ones are awaited one at a time, so
 * their rows include one await (about 0.05 µs on this machine), as every caller pays it.
 *
 *   npx tsx bench/engine-cost.ts          (N_OPS calls per run, default 200,000; 7 runs, median)
 *   npx tsx bench/engine-cost.ts --quick  (20,000 calls, 3 runs)
 *   npm run bench runs it compiled, pinned to the client's core, as a section of the report.
 */
import { pathToFileURL } from 'node:url';
import { MemoryStore } from '../adapters/memory/index.ts';
import { EntryCodec } from '../src/cache/entry-codec.ts';
import { buildPath } from '../src/cache/path/build-path.ts';
import { GuardLayer } from '../src/cache/path/guard.ts';
import { StoreHandle } from '../src/cache/path/store-handle.ts';
import { autoSerializer, cborSerializer, createCache, decodeEnvelope, encodeEnvelope, jsonSerializer, type Store } from '../src/index.ts';
import { serializerFor } from '../src/codec/serializers.ts';
import { systemClock } from '../src/cache/clock.ts';
import { rowsPayload, smallValue } from './support/payloads.ts';
import { median } from './support/stats.ts';

/** One row of the engine-cost table. */
export interface EngineCostRow {
  /** What was called. */
  step: string;
  /** The operation the row belongs to (get, set, …). */
  op: string;
  /** CPU µs per call, median of the runs. */
  us: number;
}

/** The memory store, declared as a remote store that keeps order (what the engine sees of valkey). */
class RemoteLikeStore extends MemoryStore {
  override readonly local = false as unknown as true;
  readonly ordered = true;

  constructor(options: ConstructorParameters<typeof MemoryStore>[0]) {
    super(options);
    // A remote store has no synchronous reads.
    for (const capability of ['getSync', 'getManySync', 'readWithGenerationsSync']) (this as unknown as Record<string, unknown>)[capability] = undefined;
  }
}

const quietReporter = { failed: () => undefined, skipped: () => undefined, healthChanged: () => undefined };

/** One measured case: synchronous (a plain loop) or returning a promise (awaited one at a time). */
type Case = [op: string, step: string, kind: 'sync' | 'async', call: () => unknown];

/** Measures every row; `n` calls per run, `runs` runs, median kept. */
export async function measureEngineCost(n: number, runs: number): Promise<EngineCostRow[]> {
  const remote: Store = new RemoteLikeStore({ maxEntries: 10_000 });
  const local = new MemoryStore({ maxEntries: 10_000 });
  const value = smallValue(7);
  const document = rowsPayload();
  const cache = createCache({ store: remote, closeStore: false });
  const localCache = createCache({ store: local, closeStore: false });
  for (const c of [cache, localCache]) {
    await c.set('k', value);
    await c.set('doc', document);
    await c.getOrSet('tagged', () => value, { tags: ['t1', 't2'] });
  }
  await cache.idle();
  await localCache.idle();
  const stored = (await remote.get('cachette:k'))!;
  const guard = new GuardLayer(new StoreHandle(remote, false), { timeoutMs: 1000, threshold: 5, cooldownMs: 2000, clock: systemClock, reporter: quietReporter });
  const pathOf = (batch: boolean) => buildPath({ store: remote, closeStore: false, batch, timeoutMs: 1000, threshold: 5, cooldownMs: 2000, clock: systemClock, reporter: quietReporter }).top;
  const path = pathOf(true);
  const envelope = decodeEnvelope(stored);
  const jsonBytes = envelope.payload;
  const jsonText = new TextDecoder().decode(jsonBytes);
  const cbor = cborSerializer.encode(value).slice();
  const codec = new EntryCodec(autoSerializer, undefined, 16 * 1024 * 1024);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const utf8Encoder = new TextEncoder();
  // A literal per call, as the engine builds it: spreading a shared header object costs more than the encoding.
  const noTags: [] = [];
  const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
  await cache.setMany(keys.map((key) => ({ key, value })));
  await localCache.setMany(keys.map((key) => ({ key, value })));
  const getSync = (local as { getSync?: (key: string) => Uint8Array | undefined }).getSync?.bind(local);
  const untagged = () => value;
  const tagged = { tags: ['t1', 't2'] };

  const cases: Case[] = [
    ['get', 'store.get (memory)', 'async', () => remote.get('cachette:k')],
    ['get', '+ guard (timeouts, breaker)', 'async', () => guard.get('cachette:k')],
    ['get', '+ batcher + generation layer (the whole path)', 'async', () => path.get('cachette:k')],
    ['get', 'envelope decode (header, no payload)', 'sync', () => decodeEnvelope(stored)],
    ['get', 'UTF-8 decode of the JSON payload', 'sync', () => utf8.decode(jsonBytes)],
    ['get', 'JSON.parse of that text', 'sync', () => JSON.parse(jsonText)],
    ['get', 'JSON payload decode (both)', 'sync', () => jsonSerializer.decode(jsonBytes)],
    ['get', 'CBOR payload decode', 'sync', () => cborSerializer.decode(cbor)],
    ['get', 'entry decode (envelope + payload)', 'sync', () => codec.decode(stored)],
    ['get', 'cache.get (defaults)', 'async', () => cache.get('k')],
    ['get', 'cache.get of an absent key', 'async', () => cache.get('absent')],
    ['get', 'cache.get of the ~14 KiB document', 'async', () => cache.get('doc')],
    ...(getSync ? [['get local', 'store.getSync (memory)', 'sync', () => getSync('cachette:k')] as Case] : []),
    ['get local', 'store.get (memory)', 'async', () => local.get('cachette:k')],
    ['get local', 'cache.get (memory store)', 'async', () => localCache.get('k')],
    ['get local', 'cache.get of an absent key (memory store)', 'async', () => localCache.get('absent')],
    ['getOrSet', 'cache.getOrSet hit (defaults)', 'async', () => cache.getOrSet('k', untagged)],
    ['getOrSet', 'cache.getOrSet hit, 2 tags (defaults)', 'async', () => cache.getOrSet('tagged', untagged, tagged)],
    ['getOrSet', 'cache.getOrSet hit (memory store)', 'async', () => localCache.getOrSet('k', untagged)],
    ['getOrSet', 'cache.getOrSet hit, 2 tags (memory store)', 'async', () => localCache.getOrSet('tagged', untagged, tagged)],
    ['set', 'store.set (memory)', 'async', () => remote.set('cachette:raw', stored)],
    ['set', '+ guard (timeouts, breaker)', 'async', () => guard.set('cachette:raw', stored)],
    ['set', '+ batcher + generation layer (the whole path)', 'async', () => path.set('cachette:raw', stored)],
    ['set', "'auto' plain-value check", 'sync', () => serializerFor(autoSerializer, value)],
    ['set', 'JSON.stringify', 'sync', () => JSON.stringify(value)],
    ['set', 'UTF-8 encode of that text', 'sync', () => utf8Encoder.encode(jsonText)],
    ['set', "'auto' serializer encode (check + JSON + UTF-8)", 'sync', () => autoSerializer.encode(value)],
    ['set', 'CBOR encode', 'sync', () => cborSerializer.encode(value)],
    [
      'set',
      'envelope encode (header + payload copy)',
      'sync',
      () => encodeEnvelope({ serializerId: 2, compressionId: 0, createdAt: 0, freshFor: Infinity, staleFor: 0, tags: noTags, payload: jsonBytes }),
    ],
    ['set', 'entry encode (check + JSON + envelope)', 'sync', () => codec.encode('k', value, 0, Infinity, 0, [])],
    ['set', 'cache.set (defaults)', 'async', () => cache.set('k', value)],
    ['set', 'cache.set of the ~14 KiB document', 'async', () => cache.set('doc', document)],
    ['set', "'auto' plain-value check, ~14 KiB document", 'sync', () => serializerFor(autoSerializer, document)],
    ['set', 'JSON.stringify, ~14 KiB document', 'sync', () => JSON.stringify(document)],
    ['set local', 'cache.set (memory store)', 'async', () => localCache.set('k', value)],
    ['getMany ×10', 'cache.getMany (defaults)', 'async', () => cache.getMany(keys)],
    ['getMany ×10', 'cache.getMany (memory store)', 'async', () => localCache.getMany(keys)],
    ['setMany ×10', 'cache.setMany (defaults)', 'async', () => cache.setMany(keys.map((key) => ({ key, value })))],
    ['incr', 'cache.incr (defaults)', 'async', () => cache.incr('n')],
    ['delete', 'cache.delete (defaults)', 'async', () => cache.delete('absent')],
  ];

  const samples = cases.map((): number[] => []);
  for (let run = 0; run <= runs; run++) {
    for (let c = 0; c < cases.length; c++) {
      const [, step, kind, call] = cases[c]!;
      // The document rows cost ~100× the others: fewer calls keep the run short.
      const calls = step.includes('14 KiB') ? Math.max(1, Math.floor(n / 50)) : n;
      const c0 = process.cpuUsage();
      if (kind === 'sync') for (let i = 0; i < calls; i++) call();
      else for (let i = 0; i < calls; i++) await call();
      const used = process.cpuUsage(c0);
      // Run 0 warms the JIT up and is not kept.
      if (run > 0) samples[c]!.push((used.user + used.system) / calls);
    }
  }
  await cache.close();
  await localCache.close();
  await guard.close();
  return cases.map(([op, step], c) => ({ op, step, us: median(samples[c]!) }));
}

/** The rows as a markdown table. */
export function engineCostTable(rows: readonly EngineCostRow[]): string {
  const lines = ['| op | step | CPU µs per call |', '|---|---|---:|'];
  for (const r of rows) lines.push(`| ${r.op} | ${r.step} | ${r.us.toFixed(3)} |`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const quick = process.argv.includes('--quick');
  const n = Number(process.env.N_OPS ?? (quick ? 20_000 : 200_000));
  const runs = quick ? 3 : 7;
  const rows = await measureEngineCost(n, runs);
  // --json: one line for `npm run bench`, which runs this file as a pinned child process.
  console.log(process.argv.includes('--json') ? JSON.stringify(rows) : engineCostTable(rows));
}
