/**
 * The bookkeeping for reads in flight of the tiers whose copies are invalidated by messages
 * (tracking and coherent, src/cache/tiers/reads-in-flight.ts): the invalidations that arrive
 * while a read is in flight are remembered (so that its reply does not become a copy that missed
 * one), and emptied once no read is. A busy process may never have none in flight: the memory
 * is then bounded all the same, and what is forgotten only costs copies, never a stale one. The
 * tier runs on the engine's real path over the memory store; the test holds reads in flight and
 * delivers the invalidations itself (the store's `track` or `coherence`, which Valkey and SQLite
 * offer for real: the coherent suites run on those).
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../adapters/memory/index.ts';
import { EntryCodec } from '../../src/cache/entry-codec.ts';
import { buildPath } from '../../src/cache/path/build-path.ts';
import { L1Copies } from '../../src/cache/tiers/l1-copies.ts';
import { RemoteReads } from '../../src/cache/tiers/remote-reads.ts';
import { CoherentTier } from '../../src/cache/tiers/coherent-tier.ts';
import { TrackingTier } from '../../src/cache/tiers/tracking-tier.ts';
import { resolveSerializer } from '../../src/codec/serializers.ts';
import type { Coherence, InvalidationListener, Tracking } from '../../src/store/types.ts';

/** The memory store, with reads that wait while held and invalidations the test delivers. */
class HeldMemory extends MemoryStore {
  listener: InvalidationListener | undefined;
  #held: Array<() => void> | undefined;

  hold(): void {
    this.#held = [];
  }

  release(): void {
    const waiting = this.#held ?? [];
    this.#held = undefined;
    for (const resume of waiting) resume();
  }

  override get(key: string): Promise<Uint8Array | undefined> {
    const held = this.#held;
    if (held === undefined) return super.get(key);
    return new Promise<void>((resolve) => held.push(resolve)).then(() => super.get(key));
  }

  track(listener: InvalidationListener): Tracking {
    this.listener = listener;
    return { live: true, session: 1, close: async () => {} };
  }
}

const PREFIX = 'p:';

/** A coherence bus that always serves and covers everything: the test delivers the invalidations. */
const alwaysCoherent: Coherence = {
  serving: () => true,
  session: 1,
  mark: 0,
  covered: () => true,
  barrier: async () => true,
  invalidate: async () => {},
  close: async () => {},
};

const tiers = ['tracking', 'coherent'] as const;

function setup(kind: (typeof tiers)[number]) {
  const store = new HeldMemory();
  const { top } = buildPath({
    store,
    closeStore: true,
    batch: false,
    timeoutMs: Infinity,
    threshold: 5,
    cooldownMs: 1000,
    clock: { now: Date.now },
    reporter: { failed() {}, skipped() {}, healthChanged() {} },
  });
  const codec = new EntryCodec(resolveSerializer('auto'), undefined, 1 << 20);
  const remote = new RemoteReads(top, PREFIX, { decode: (_, bytes) => codec.decode(bytes), outdated() {} });
  const copies = new L1Copies(1000, 1 << 20);
  const tier = kind === 'tracking' ? new TrackingTier(remote, copies, top, PREFIX) : new CoherentTier(remote, copies, alwaysCoherent, 'lease', PREFIX, { bypassed() {}, coherenceChanged() {} });
  const listener: InvalidationListener = kind === 'tracking' ? store.listener! : (tier as CoherentTier);
  const write = (key: string, value: unknown) => store.set(PREFIX + key, codec.encode(key, value, Date.now(), 60_000, 0, []));
  return { store, copies, tier, write, invalidate: (keys: string[]) => listener.invalidated(keys.map((key) => PREFIX + key)) };
}

describe.each(tiers)('the %s tier under reads that always overlap', (kind) => {
  it('remembers at most 10,000 invalidations while reads are in flight, and keeps no copy of a read that may have missed one', async () => {
    const { store, copies, tier, write, invalidate } = setup(kind);
    await write('k', 'v1');
    await write('k2', 'v2');
    store.hold();
    const first = tier.read('k', `${PREFIX}k`, []);
    // Its own key first (its reply may predate the write), then 50,000 other keys while it is
    // in flight, in batches as the server sends them: the first record is forgotten early on.
    invalidate(['k']);
    let most = 0;
    for (let i = 0; i < 50_000; i += 100) {
      invalidate(Array.from({ length: 100 }, (_, j) => `other:${i + j}`));
      most = Math.max(most, tier.remembered);
    }
    expect(most).toBeLessThanOrEqual(10_000);
    expect(most).toBeGreaterThan(9_000);
    // A read issued after the last forgetting is judged on what is remembered since.
    const second = tier.read('k2', `${PREFIX}k2`, []);
    store.release();
    expect((await first).entry?.value).toBe('v1');
    expect((await second).entry?.value).toBe('v2');
    expect(copies.get(`${PREFIX}k`)).toBeUndefined(); // its invalidation was forgotten: it is no copy
    expect(copies.get(`${PREFIX}k2`)?.entry.value).toBe('v2');
    expect(tier.remembered).toBe(0); // nothing in flight: nothing remembered
  });

  it('still keeps no copy of a read whose own key was invalidated while it was in flight', async () => {
    const { store, copies, tier, write, invalidate } = setup(kind);
    await write('k', 'v1');
    store.hold();
    const read = tier.read('k', `${PREFIX}k`, []);
    invalidate(['k']);
    store.release();
    expect((await read).entry?.value).toBe('v1');
    expect(copies.size).toBe(0);
    await tier.read('k', `${PREFIX}k`, []);
    expect(copies.size).toBe(1);
  });
});
