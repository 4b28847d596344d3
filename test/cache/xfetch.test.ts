import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache, type FactoryContext } from '../../src/index.ts';
import { refreshDue } from '../../src/cache/fill/fill-handler.ts';
import type { Store } from '../../src/store/types.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

const targets: Array<{ name: string; open: () => Store }> = [...engineTargets, { name: 'sqlite', open: () => tempSqliteStore() }];

/** Δ: how long each fill's factory "takes", on the fake clock it moves. */
const DELTA = 1000;
const TTL = 100_000;

describe.each(targets)('xfetch on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  let other: Cache;
  const clock = new FakeClock();
  beforeAll(() => {
    store = open();
    const namespace = uniqueNamespace('xfetch');
    cache = createCache({ store, namespace, clock, closeStore: false, logger: false, ttl: TTL, xfetch: true });
    // Another cache over the same store, with xfetch per call only: it has never run the factory.
    other = createCache({ store, namespace, clock, closeStore: false, logger: false, ttl: TTL });
  });
  afterAll(async () => {
    await cache.close();
    await other.close();
    await store.close();
  });

  /** A factory that takes Δ on the cache's clock and returns `value`, counting its runs. */
  function slow(value: string, runs: { count: number }, gate?: Promise<void>) {
    return async (_ctx: FactoryContext<string>) => {
      runs.count++;
      clock.advance(DELTA);
      await gate;
      return value;
    };
  }

  it('refreshes early near expiry, once for 100 concurrent hits, and never far from it', async () => {
    const runs = { count: 0 };
    expect(await cache.getOrSet('hot', slow('v1', runs))).toBe('v1');
    await cache.idle();
    // Written when the factory returned: fresh for TTL from then.
    const { ttl } = await cache.inspect('hot');
    expect(ttl).toBe(TTL);
    // 40 Δ before expiry a hit refreshes with probability e^-40 (about 4·10⁻¹⁸): 200 hits, none.
    clock.advance(TTL - 40 * DELTA);
    for (let i = 0; i < 200; i++) expect(await cache.getOrSet('hot', slow('never', runs))).toBe('v1');
    expect(runs.count).toBe(1);
    expect(cache.stats().refreshes).toBe(0);
    // 1 ms before expiry: each hit refreshes with probability e^-0.001; 100 of them start one refresh.
    clock.advance(40 * DELTA - 1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const served = await Promise.all(Array.from({ length: 100 }, () => cache.getOrSet('hot', slow('v2', runs, gate))));
    expect(served.every((value) => value === 'v1')).toBe(true);
    await vi.waitFor(() => expect(runs.count).toBe(2));
    release();
    await cache.idle();
    expect(cache.stats().refreshes).toBe(1);
    expect(await cache.get('hot')).toBe('v2');
  });

  it('reads Δ from the entry: another cache over the store refreshes it early too', async () => {
    const runs = { count: 0 };
    await cache.getOrSet('shared', slow('v1', runs));
    await cache.idle();
    clock.advance(TTL - 1);
    // Off by default in `other`: a hit 1 ms before expiry is served and nothing more.
    expect(await other.getOrSet('shared', slow('v2', runs))).toBe('v1');
    await other.idle();
    expect(runs.count).toBe(1);
    expect(await other.getOrSet('shared', slow('v2', runs), { xfetch: 1 })).toBe('v1');
    await other.idle();
    expect(runs.count).toBe(2);
    expect(await other.get('shared')).toBe('v2');
  });

  it('is off per call with xfetch: false', async () => {
    const runs = { count: 0 };
    await cache.getOrSet('quiet', slow('v1', runs));
    await cache.idle();
    clock.advance(TTL - 1);
    expect(await cache.getOrSet('quiet', slow('v2', runs), { xfetch: false })).toBe('v1');
    await cache.idle();
    expect(runs.count).toBe(1);
  });
});

describe('xfetch', () => {
  it('is due when now − Δ·β·ln(random) reaches the expiry', () => {
    const found = { createdAt: 0, freshUntil: 10_000, computeMs: 1000 };
    // −ln(0.5) ≈ 0.693: with Δ = 1 s and β = 1, due from 693 ms before expiry on.
    expect(refreshDue(found, undefined, 1, 10_000 - 694, () => 0.5)).toBe(false);
    expect(refreshDue(found, undefined, 1, 10_000 - 693, () => 0.5)).toBe(true);
    // β = 2 doubles the lead.
    expect(refreshDue(found, undefined, 2, 10_000 - 1386, () => 0.5)).toBe(true);
    // No Δ recorded, β 0 (off), an endless ttl: never early.
    expect(refreshDue({ createdAt: 0, freshUntil: 10_000 }, undefined, 1, 9999, () => 0.5)).toBe(false);
    expect(refreshDue(found, undefined, 0, 9999, () => 0.5)).toBe(false);
    expect(refreshDue({ ...found, freshUntil: Infinity }, undefined, 1, 9999, () => 1e-300)).toBe(false);
    // refreshAhead still decides alone.
    expect(refreshDue(found, 0.5, undefined, 5000)).toBe(true);
  });

  it('records no Δ when it is off, so entries keep their plain shape', async () => {
    const store = memoryStore();
    const clock = new FakeClock();
    const plain = createCache({ store, clock, ttl: TTL });
    const early = createCache({ store, clock, ttl: TTL, namespace: 'x', xfetch: true });
    const take = async () => {
      clock.advance(DELTA);
      return { a: 1 };
    };
    await plain.getOrSet('k', take);
    await early.getOrSet('k', take);
    await plain.idle();
    await early.idle();
    const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    expect(text(await store.get('cachette:k'))).not.toContain('computeMs');
    expect(text(await store.get('cachette:x:k'))).toContain('computeMs');
    expect(await early.get('k')).toEqual({ a: 1 });
    await plain.close();
    await early.close();
  });

  it('refuses anything but true, false or a positive β, naming the option', async () => {
    const store = memoryStore();
    for (const bad of [0, -1, Number.NaN, Infinity, 'yes']) {
      expect(() => createCache({ store, xfetch: bad as number })).toThrow(/"xfetch" must be true, false or β/);
    }
    const cache = createCache({ store });
    await expect(cache.getOrSet('k', () => 1, { xfetch: -2 })).rejects.toThrow(/"xfetch" must be true, false or β/);
    await cache.close();
  });
});
