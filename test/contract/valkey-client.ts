import assert from 'node:assert/strict';
import type { Cluster, Redis } from 'iovalkey';
import type { ValkeyClusterStore, ValkeyStore } from '../../adapters/valkey/index.ts';
import type { StoreTestContext } from '../../src/store/testing/index.ts';
import { bytes, text } from '../support/suite-api.ts';

/**
 * What the contract does not cover, run inside it (its `additionalTests`) on the store it opened,
 * on every runner (Node, Bun, Deno): `store.client` is an iovalkey client on the same server or
 * cluster, for the commands the contract leaves out (docs/stores.md), and it sees what the store
 * wrote.
 */
export function clientOnTheSameServer(context: StoreTestContext<ValkeyStore<Redis> | ValkeyClusterStore<Cluster>>): void {
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
