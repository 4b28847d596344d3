/**
 * unstorage's documented driver behaviour (unstorage.unjs.io: "Usage", "Custom driver" and the
 * Storage interface), written from those pages for any driver: what `createStorage({ driver })`
 * promises its users over it. unstorage keeps its own driver test helper in its repository, not in
 * the npm package, so this suite is written from the docs rather than from that code. Like the
 * store contract it has an `additionalTests` hook for what is particular to one driver.
 */
import { createStorage, type Driver, type Storage, type StorageValue } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The driver under test. */
export interface DriverTarget {
  name: string;
  /** A fresh driver over a key space of its own, empty; the suite disposes it. */
  driver(): Driver;
  /** Tests of what is particular to this driver, with the storage the suite made over it. */
  additionalTests?(context: { storage(): Storage }): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Declares the suite as one `describe`. */
export function describeDriver(target: DriverTarget): void {
  describe(`unstorage driver behaviour: ${target.name}`, () => {
    let storage: Storage;
    beforeAll(() => {
      storage = createStorage({ driver: target.driver() });
    });
    afterAll(async () => {
      await storage.clear();
      await storage.dispose();
    });

    it('starts empty: hasItem false, getItem null, getKeys []', async () => {
      expect(await storage.hasItem('s1:a')).toBe(false);
      expect(await storage.getItem('s1:a')).toBeNull();
      expect(await storage.getKeys('s1')).toEqual([]);
    });

    it('setItem then getItem and hasItem; keys are normalised (":" and "/" alike)', async () => {
      await storage.setItem('s1:a', 'test_data');
      expect(await storage.hasItem('s1:a')).toBe(true);
      expect(await storage.getItem('s1:a')).toBe('test_data');
      expect(await storage.getItem('s1/a')).toBe('test_data');
      await storage.setItem('s2:a/b', 'nested');
      expect(await storage.getItem('s2:a:b')).toBe('nested');
    });

    it('serializes values: objects, numbers, booleans and null round-trip', async () => {
      await storage.setItem('v:object', { name: 'Ada', tags: ['x'], nested: { ok: true } });
      await storage.setItem('v:number', 42);
      await storage.setItem('v:false', false);
      await storage.setItem('v:null', null);
      expect(await storage.getItem('v:object')).toEqual({ name: 'Ada', tags: ['x'], nested: { ok: true } });
      expect(await storage.getItem('v:number')).toBe(42);
      expect(await storage.getItem('v:false')).toBe(false);
      expect(await storage.getItem('v:null')).toBeNull();
    });

    it('getKeys lists what was set, under a base, and to a depth', async () => {
      await storage.setItem('k:a', '1');
      await storage.setItem('k:b:c', '2');
      await storage.setItem('k:b:d:e', '3');
      await storage.setItem('kx:a', 'not under k');
      expect((await storage.getKeys('k')).sort()).toEqual(['k:a', 'k:b:c', 'k:b:d:e']);
      expect((await storage.getKeys('k:b')).sort()).toEqual(['k:b:c', 'k:b:d:e']);
      expect((await storage.getKeys('k', { maxDepth: 1 })).sort()).toEqual(['k:a']);
      expect(await storage.getKeys()).toEqual(expect.arrayContaining(['k:a', 'kx:a', 's1:a']));
    });

    it('getItems and setItems batch several keys, a missing one as null', async () => {
      const items: Array<{ key: string; value: StorageValue }> = [
        { key: 'b:1', value: 'one' },
        { key: 'b:2', value: { two: 2 } },
      ];
      await storage.setItems(items);
      expect(await storage.getItems(['b:1', 'b:2', 'b:none'])).toEqual([
        { key: 'b:1', value: 'one' },
        { key: 'b:2', value: { two: 2 } },
        { key: 'b:none', value: null },
      ]);
    });

    it('raw values (getItemRaw/setItemRaw) keep their bytes', async () => {
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      await storage.setItemRaw('raw:a', bytes);
      const read = await storage.getItemRaw('raw:a');
      expect(read).toBeInstanceOf(Uint8Array);
      expect([...(read as Uint8Array)]).toEqual([...bytes]);
      expect(await storage.getItemRaw('raw:none')).toBeNull();
    });

    it('removeItem removes; setItem of undefined removes too', async () => {
      await storage.setItem('r:a', 'x');
      await storage.removeItem('r:a');
      expect(await storage.hasItem('r:a')).toBe(false);
      expect(await storage.getItem('r:a')).toBeNull();
      await storage.setItem('r:b', 'y');
      // Documented: "If value is undefined, it is same as calling removeItem(key)" (plain JS may pass it).
      await storage.setItem('r:b', undefined as unknown as StorageValue);
      expect(await storage.hasItem('r:b')).toBe(false);
    });

    it('a ttl (seconds) expires the item; without one it stays', async () => {
      await storage.setItem('t:short', 'gone soon', { ttl: 1 });
      await storage.setItem('t:long', 'stays');
      expect(await storage.getItem('t:short')).toBe('gone soon');
      await sleep(1300);
      expect(await storage.getItem('t:short')).toBeNull();
      expect(await storage.hasItem('t:short')).toBe(false);
      expect(await storage.getItem('t:long')).toBe('stays');
    });

    it('getMeta tells when an item was written', async () => {
      const before = Date.now();
      await storage.setItem('m:a', 'x', { ttl: 60 });
      const meta = await storage.getMeta('m:a');
      expect(meta.mtime).toBeInstanceOf(Date);
      expect(meta.mtime!.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(meta.ttl).toBeGreaterThan(50);
    });

    it('clear() removes every item of the driver (a base clears only the mounts under it)', async () => {
      const own = createStorage({ driver: target.driver() });
      await own.setItem('c:a', 'one');
      await own.setItem('c:b:c', 'two');
      // unstorage's clear(base) clears the mounts under base: the root mount is none of them.
      await own.clear('c');
      expect(await own.getItem('c:a')).toBe('one');
      await own.clear();
      expect(await own.getKeys()).toEqual([]);
      await own.dispose();
    });

    it('works as a mount beside others: keys carry the mount point, and a clear of the mount stays in it', async () => {
      const mounted = createStorage();
      mounted.mount('cache', target.driver());
      await mounted.setItem('cache:x:1', 'in the driver');
      await mounted.setItem('other:1', 'in memory');
      expect(await mounted.getItem('cache:x:1')).toBe('in the driver');
      expect(await mounted.getKeys('cache')).toEqual(['cache:x:1']);
      await mounted.clear('cache');
      expect(await mounted.getItem('cache:x:1')).toBeNull();
      expect(await mounted.getItem('other:1')).toBe('in memory');
      await mounted.dispose();
    });

    target.additionalTests?.({ storage: () => storage });
  });
}
