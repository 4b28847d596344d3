import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryKey, fillLeaseKey, lockFenceKey, lockKey, tagKeys, tagOfGenerationKey } from '../../src/cache/key-space.ts';
import { createCache, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

/** A promise and the function that settles it: interleavings are driven by hand, never by timing. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe('the key space', () => {
  const prefixes = ['', 'cachette:', 'cachette:ns:', 'app:v2:'];
  // Keys chosen to collide with what the engine writes, under the old layout or any naive one.
  const hostile = [
    '#{tag:t}:gen',
    '#{tag:t}:fence',
    '#lease:k',
    '#lock:k',
    '#lock-fence:k',
    '##{tag:t}:gen',
    'ns:#{tag:t}:gen',
    'ns:#lease:k',
    ':#',
    '#',
    '##',
    ':##',
    'a:#:#b',
    '{tag:t}:gen',
    'plain',
    'user:1',
  ];

  it('leaves ordinary keys as they are', () => {
    expect(entryKey('cachette:', 'user:1')).toBe('cachette:user:1');
    expect(entryKey('cachette:', 'a#b')).toBe('cachette:a#b');
    expect(entryKey('cachette:', '{x}')).toBe('cachette:{x}');
  });

  it('maps distinct keys to distinct store keys (the escape is one-to-one)', () => {
    const seen = new Map<string, string>();
    const alphabet = ['#', ':', 'a', '{', '}'];
    // Every key of up to 5 characters over the characters that matter.
    const all: string[] = [''];
    for (let length = 1; length <= 5; length++) for (const base of all.filter((k) => k.length === length - 1)) for (const c of alphabet) all.push(base + c);
    for (const key of [...all.filter((k) => k.length > 0), ...hostile]) {
      const stored = entryKey('p:', key);
      const before = seen.get(stored);
      if (before !== undefined) expect(before).toBe(key);
      seen.set(stored, key);
    }
  });

  it('never produces a tag counter, a fence, a fill lease or a lock of any cache on the store', () => {
    const engineKeys = new Set<string>();
    for (const prefix of prefixes) {
      for (const name of ['t', 'k', '#{tag:t}:gen', 'x}:gen']) {
        const keys = tagKeys(prefix, name);
        engineKeys.add(keys.generation).add(keys.fence).add(fillLeaseKey(prefix, name)).add(lockKey(prefix, name)).add(lockFenceKey(prefix, name));
      }
    }
    for (const prefix of prefixes) {
      for (const key of hostile) {
        const stored = entryKey(prefix, key);
        expect(engineKeys.has(stored), `${prefix} + ${key} → ${stored}`).toBe(false);
        // Whatever follows the prefix, no engine marker can appear after a segment's ':'.
        expect(stored.slice(prefix.length)).not.toMatch(/(^|:)#[^#]/);
      }
    }
  });

  it('recognises only its own generation counters', () => {
    expect(tagOfGenerationKey('p:', tagKeys('p:', 'users').generation)).toBe('users');
    expect(tagOfGenerationKey('p:', tagKeys('p:', 'a}b').generation)).toBe('a}b');
    expect(tagOfGenerationKey('p:', tagKeys('p:', 'users').fence)).toBeUndefined();
    expect(tagOfGenerationKey('p:', entryKey('p:', '#{tag:users}:gen'))).toBeUndefined();
    expect(tagOfGenerationKey('p:', tagKeys('q:', 'users').generation)).toBeUndefined();
  });

  it('refuses a prefix or namespace that would reach into the reserved space', () => {
    const store = engineTargets[0]!.open();
    expect(() => createCache({ store, prefix: '#app' })).toThrow(/"prefix" may not start with "#"/);
    expect(() => createCache({ store, namespace: 'a:#{tag:t}' })).toThrow(RangeError);
    expect(() => createCache({ store, prefix: 'a#b', namespace: 'c' })).not.toThrow();
  });
});

describe.each(engineTargets)('user keys cannot reach tag or lease keys on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  let namespace: string;
  beforeAll(() => {
    store = open();
    namespace = uniqueNamespace('keyspace');
    cache = createCache({ store, namespace, closeStore: false, lockTimeout: 5000 });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('a counter on the colliding key does not move the generation back after invalidateTags', async () => {
    let runs = 0;
    const load = () => cache.getOrSet('page', () => `v${++runs}`, { tags: ['t1'] });
    expect(await load()).toBe('v1');
    expect(await cache.invalidateTags(['t1'])).toBe(true);
    // Under the old layout this key was the tag's counter: one step back made the old entry current.
    await cache.incr('#{tag:t1}:gen', -1);
    expect(await cache.get('page')).toBeUndefined();
    expect(await load()).toBe('v2');
    expect(await cache.get('#{tag:t1}:gen')).toBeUndefined(); // a counter of its own, not an entry
  });

  it('a set or delete of the colliding keys leaves tagged reads and fences working', async () => {
    let runs = 0;
    const load = () => cache.getOrSet('doc', () => `d${++runs}`, { tags: ['t2'] });
    expect(await load()).toBe('d1');
    expect(await cache.set('#{tag:t2}:gen', 'not a counter')).toBe(true);
    expect(await cache.set('#{tag:t2}:fence', 'not a fence')).toBe(true);
    expect(await cache.get('#{tag:t2}:gen')).toBe('not a counter');
    expect(await load()).toBe('d1'); // still a hit: the generation was not touched
    const write = await cache.beginWrite(['t2']);
    expect(await cache.delete(['#{tag:t2}:fence'])).toBe(1); // the caller's own entry, not the fence
    expect(await cache.set('fenced', 1, { tags: ['t2'] })).toBe(false); // the write lease still holds
    await write.commit();
    expect(await load()).toBe('d2');
    expect(runs).toBe(2);
    expect(cache.stats().storeErrors).toBe(0);
  });

  it('a set of the colliding lease key does not hold the lease, and a delete of it does not free one', async () => {
    const other = createCache({ store, namespace, closeStore: false, lockTimeout: 5000 });
    try {
      // A caller's entry under the lease's name: another process's fill does not wait for it.
      expect(await cache.set('#lease:free', 'x', { ttl: '1h' })).toBe(true);
      expect(await other.getOrSet('free', () => 'filled')).toBe('filled');
      expect(other.stats().leaseWaits).toBe(0);

      // A fill holds the lease of "busy"; deleting the colliding key must not release it.
      const started = gate();
      const release = gate<string>();
      const first = cache.getOrSet('busy', () => {
        started.open();
        return release.promise;
      });
      await started.promise;
      expect(await cache.delete('#lease:busy')).toBe(0);
      let otherRuns = 0;
      const second = other.getOrSet('busy', () => `other${++otherRuns}`);
      // The holder finishes only once the other process is seen waiting on its lease.
      while (other.stats().leaseWaits === 0 && otherRuns === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      release.open('first');
      expect(await first).toBe('first');
      expect(await second).toBe('first'); // it waited for the holder instead of filling again
      expect(otherRuns).toBe(0);
      expect(other.stats().leaseWaits).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('a key of a cache without namespace cannot reach the tag counter of a namespaced cache', async () => {
    const outer = createCache({ store, closeStore: false });
    try {
      let runs = 0;
      const load = () => cache.getOrSet('nested', () => `n${++runs}`, { tags: ['t3'] });
      expect(await load()).toBe('n1');
      await cache.invalidateTags(['t3']);
      await outer.incr(`${namespace}:#{tag:t3}:gen`, -1);
      expect(await cache.get('nested')).toBeUndefined();
      await outer.delete(`${namespace}:#{tag:t3}:gen`);
    } finally {
      await outer.close();
    }
  });
});
