// cachetteCache's options, withFencedWrites's refusals, and the pure pieces: the data copy of a
// driver's result, the lifetime read from Drizzle's CacheConfig, and the key of a query.
import Database from 'better-sqlite3';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzleProxy } from 'drizzle-orm/sqlite-proxy';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';
import { cachetteCache, withFencedWrites } from '../../src/drizzle/index.ts';
import { plainResult } from '../../src/drizzle/plain-result.ts';
import { QueryCache } from '../../src/drizzle/query-cache.ts';
import { queryKey } from '../../src/drizzle/query-key.ts';
import { queryTtlMs } from '../../src/drizzle/query-ttl.ts';
import { DocsCache } from './docs-cache.ts';

describe('cachetteCache(options)', () => {
  it('takes exactly one of cache and store', () => {
    expect(() => cachetteCache({})).toThrow(/exactly one of "cache".*"store"/);
    expect(() => cachetteCache({ cache: createCache({ store: memoryStore() }), store: memoryStore() })).toThrow(/exactly one/);
    expect(() => cachetteCache(undefined as never)).toThrow(/options object/);
    expect(() => cachetteCache({ cache: {} as never })).toThrow(/"cache" must be a cache from createCache/);
  });

  it('names an unknown option and the closest known one', () => {
    expect(() => cachetteCache({ store: memoryStore(), globl: true } as never)).toThrow(/unknown option "globl" \(did you mean "global"\?\)/);
  });

  it('checks ttl, global and namespace', () => {
    expect(() => cachetteCache({ store: memoryStore(), ttl: 'soon' as never })).toThrow(RangeError);
    expect(() => cachetteCache({ store: memoryStore(), ttl: 0 })).toThrow(/greater than 0/);
    expect(() => cachetteCache({ store: memoryStore(), global: 'yes' as never })).toThrow(/"global" must be a boolean/);
    expect(() => cachetteCache({ store: memoryStore(), namespace: '' })).toThrow(/"namespace" must be a non-empty string/);
  });

  it('says its strategy as Drizzle names them', () => {
    expect(cachetteCache({ store: memoryStore() }).strategy()).toBe('explicit');
    expect(cachetteCache({ store: memoryStore(), global: true }).strategy()).toBe('all');
  });

  it('closes the cache it built from a store, and leaves a cache passed in open', async () => {
    const counted = () => {
      const store = memoryStore();
      const close = store.close.bind(store);
      const counter = { store, closed: 0 };
      store.close = async () => {
        counter.closed++;
        await close();
      };
      return counter;
    };
    const built = counted();
    await cachetteCache({ store: built.store }).close();
    expect(built.closed).toBe(1);
    const passed = counted();
    const shared = createCache({ store: passed.store });
    await cachetteCache({ cache: shared }).close();
    expect(passed.closed).toBe(0);
    await shared.close();
    expect(passed.closed).toBe(1);
  });

  it('refuses bad tables and tags in invalidate() and mutate()', async () => {
    const cache = cachetteCache({ store: memoryStore() });
    await expect(cache.onMutate({ tables: [42 as never] })).rejects.toThrow(/a table must be a Drizzle table or its name/);
    await expect(cache.onMutate({ tags: [''] })).rejects.toThrow(/a tag must be a non-empty string/);
    await expect(cache.mutate([], async () => 1)).rejects.toThrow(/at least one table/);
    await expect(cache.mutate('items', 'no' as never)).rejects.toThrow(/needs a function/);
    expect(await cache.mutate('items', async () => 'done')).toBe('done');
    await cache.close();
  });
});

describe('withFencedWrites(db)', () => {
  it('refuses a synchronous SQLite driver, on which Drizzle never consults a cache', () => {
    const sqlite = new Database(':memory:');
    const db = drizzleSqlite(sqlite, { cache: cachetteCache({ store: memoryStore() }) });
    expect(() => withFencedWrites(db)).toThrow(/synchronous SQLite driver/);
    sqlite.close();
  });

  it('refuses a database without a cachette cache', () => {
    const run = async () => ({ rows: [] });
    expect(() => withFencedWrites(drizzleProxy(run))).toThrow(/drizzle\(client, \{ cache: cachetteCache/);
    expect(() => withFencedWrites(drizzleProxy(run, { cache: new DocsCache() }))).toThrow(/cachetteCache/);
    expect(() => withFencedWrites({ $cache: cachetteCache({ store: memoryStore() }) })).toThrow(/no session to route/);
  });
});

describe('plainResult', () => {
  class Result {
    rows = [[1, 'a']];
    rowCount = 1;
    parsers = [() => 1, () => 2];
    types = { getTypeParser: () => undefined };
    parse() {
      return this.rows;
    }
  }

  it('keeps the data of a driver’s result and drops its functions and class', () => {
    const copy = plainResult(new Result());
    expect(copy).toEqual({ rows: [[1, 'a']], rowCount: 1, parsers: [null, null], types: {} });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('keeps Dates, bytes, BigInts, Maps and Sets as they are', () => {
    const date = new Date(0);
    const bytes = new Uint8Array([1, 2]);
    const copy = plainResult({ rows: [{ date, bytes, big: 2n ** 70n, map: new Map([[1, 2]]), set: new Set([1]), none: null, skipped: undefined }] }) as { rows: Array<Record<string, unknown>> };
    expect(copy.rows[0]).toEqual({ date, bytes, big: 2n ** 70n, map: new Map([[1, 2]]), set: new Set([1]), none: null });
    expect(copy.rows[0]!.date).toBe(date);
  });

  it('stops copying deep inside a value (a driver result is shallow) rather than walking a cycle', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let at = plainResult(cyclic) as Record<string, unknown>;
    let depth = 0;
    while (at !== cyclic && depth < 100) {
      at = at.self as Record<string, unknown>;
      depth++;
    }
    expect(depth).toBe(17); // copies down to depth 16, the value itself below
  });
});

describe('queryTtlMs (Drizzle’s CacheConfig)', () => {
  const now = 1_000_000;
  it('reads relative and absolute expiries', () => {
    expect(queryTtlMs(undefined, now)).toBeUndefined();
    expect(queryTtlMs({}, now)).toBeUndefined();
    expect(queryTtlMs({ keepTtl: true, hexOptions: 'NX' }, now)).toBeUndefined();
    expect(queryTtlMs({ ex: 5 }, now)).toBe(5000);
    expect(queryTtlMs({ px: 250 }, now)).toBe(250);
    expect(queryTtlMs({ pxat: now + 300 }, now)).toBe(300);
    expect(queryTtlMs({ exat: now / 1000 + 2 }, now)).toBe(2000);
    expect(queryTtlMs({ exat: now / 1000 - 2 }, now)).toBe(-2000);
  });

  it('refuses a value that is not a finite number', () => {
    expect(() => queryTtlMs({ ex: Number.NaN }, now)).toThrow(/\{ ex \} \}\) must be a finite number/);
    expect(() => queryTtlMs({ px: '5' as never }, now)).toThrow(TypeError);
  });
});

describe('queryKey (issue 27, item 9)', () => {
  const key = (params: unknown[], sql = 'select $1') => queryKey('drizzle', sql, params);

  it('keys apart the parameters a driver sends apart', () => {
    const params: unknown[][] = [
      [Infinity],
      [-Infinity],
      [Number.NaN],
      [null],
      [1],
      [1n],
      ['1'],
      [true],
      [new Date(0)],
      [new Date(0).toISOString()],
      [new Uint8Array([1])],
      [[1, 2]],
      [{ a: 1, b: 2 }],
      [{ b: 2, a: 1 }], // sent as JSON text in its own key order
      ['{"a":1,"b":2}'],
      [1, 2],
      ['1,2'],
    ];
    const keys = params.map((p) => key(p));
    expect(new Set(keys).size).toBe(params.length);
    expect(key(['a'], 'select $1, ')).not.toBe(key(['a'], 'select $1,'));
    expect(key([new Date(5)])).toBe(key([new Date(5)]));
  });

  it('throws for a parameter with no stable encoding: a class instance, a function in an object, a circular object', () => {
    class Limit {
      toPostgres() {
        return '5';
      }
    }
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const param of [new Limit(), { toPostgres: () => '5' }, circular]) expect(() => key([param])).toThrow(TypeError);
  });

  it('runs a select whose key cannot be made uncached, and says so with an error event', async () => {
    const cache = createCache({ store: memoryStore() });
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail));
    const queries = new QueryCache(cache, 'drizzle', undefined);
    let runs = 0;
    const read = { queryString: 'select $1', params: [new (class Odd {})()], tables: ['items'], config: {} };
    for (let i = 0; i < 2; i++) expect(await queries.read(read, async () => ({ rows: [++runs] }))).toEqual({ rows: [runs] });
    expect(runs).toBe(2);
    expect(errors).toEqual([1, 2].map(() => expect.objectContaining({ source: 'encode', operation: 'drizzle query key', error: expect.any(TypeError) })));
    await cache.close();
  });
});
