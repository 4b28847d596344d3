import assert from 'node:assert/strict';
import type { Cluster, Redis } from 'iovalkey';
import type { ValkeyClusterStore, ValkeyStore } from '../../adapters/valkey/index.ts';
import type { StoreTestContext } from '../../src/store/testing/index.ts';
import { bytes, text } from '../support/suite-api.ts';

/**
 * What the contract does not cover, run inside it (its `additionalTests`) on the store it opened,
 * on every runner (Node, Bun, Deno): `store.client` is an iovalkey client on the same server or
 * cluster, for the commands the contract leaves out (docs/stores.md), and it sees what the store
 * wrote, each key's own expiry included ({@link ownExpiryPerKey}).
 */
export function clientOnTheSameServer(context: StoreTestContext<ValkeyStore<Redis> | ValkeyClusterStore<Cluster>>): void {
  ownExpiryPerKey(context);
  keysAsUtf8(context);
  context.runner.it('offers store.client on the same server, which sees what the store wrote', async () => {
    const key = context.key('through-client');
    await context.store.set(key, bytes('written by the store'), 60_000);
    const read = await context.store.client.getBuffer(key);
    assert.equal(read === null ? undefined : text(read), 'written by the store');
    const ttl = await context.store.client.pttl(key);
    assert.ok(ttl > 0 && ttl <= 60_000, `pttl ${ttl}`);
    await context.store.client.set(key, 'written by the client');
    assert.equal(text(await context.store.get(key)), 'written by the client');
  });
}

/** TTLs far enough apart that a key's PTTL can only be its own, whatever the time the test takes. */
const TTL_STEP = 1_000_000;

/**
 * `setMany` gives each key its own expiry, exactly: entries with different TTLs (and some with
 * none) written by one call and by calls of the same tick, then every key's PTTL read back.
 */
export function ownExpiryPerKey(context: StoreTestContext<ValkeyStore<Redis> | ValkeyClusterStore<Cluster>>): void {
  context.runner.it('gives each key of a setMany its own expiry (PTTL), and none to an entry without a TTL', async () => {
    const entries = (call: number) =>
      Array.from({ length: 12 }, (_, i) => ({
        key: context.key(`own-ttl:${call}:${i}`),
        value: bytes(`value ${call}:${i}`),
        ...(i % 3 === 2 ? {} : { ttlMs: (1 + i + 12 * call) * TTL_STEP }),
      }));
    const calls = [entries(0), entries(1), entries(2)];
    await context.store.setMany(calls[0]!);
    // Two calls of one tick: their commands leave together.
    await Promise.all([context.store.setMany(calls[1]!), context.store.setMany(calls[2]!)]);
    for (const entry of calls.flat()) {
      const pttl = await context.store.client.pttl(entry.key);
      if (entry.ttlMs === undefined) assert.equal(pttl, -1, `${entry.key} has no TTL`);
      else assert.ok(pttl > entry.ttlMs - TTL_STEP / 2 && pttl <= entry.ttlMs, `${entry.key}: pttl ${pttl}, written with ${entry.ttlMs}`);
      assert.equal(text(await context.store.get(entry.key)), text(entry.value));
    }
  });
}

/**
 * Keys go to the server as their UTF-8 bytes, whatever their characters and length (the store's
 * encoder writes short ASCII keys by a path of its own on each runtime: resp/encoder.ts): each
 * key written by the store is found by the client under those bytes.
 */
export function keysAsUtf8(context: StoreTestContext<ValkeyStore<Redis> | ValkeyClusterStore<Cluster>>): void {
  context.runner.it('writes every key as its UTF-8 bytes: ASCII, 2-, 3- and 4-byte characters, short and long', async () => {
    const base = context.key('utf8');
    const suffixes = [
      'plain',
      '\u00e9a',
      'a\u00e9',
      '\u20ac',
      '\u{1F600}b',
      'x'.repeat(Math.max(0, 62 - base.length)) + '\u00e9a',
      'y'.repeat(Math.max(0, 64 - base.length)),
      'z'.repeat(80) + '\u00e9',
    ];
    for (const [i, suffix] of suffixes.entries()) {
      const key = `${base}${suffix}`;
      await context.store.set(key, bytes(`value ${i}`));
      const read = await context.store.client.getBuffer(Buffer.from(key, 'utf8'));
      assert.equal(read === null ? undefined : text(read), `value ${i}`, `key ${JSON.stringify(key)}`);
    }
  });
}
