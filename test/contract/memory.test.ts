import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { bytes } from '../support/suite-api.ts';

describeStoreContract(
  { describe, it, beforeAll, afterAll },
  {
    name: 'memory',
    open: () => memoryStore(),
    // What only this store reports, on the store the contract filled: what it holds, by count and size.
    additionalTests(context) {
      it('counts the entries and bytes it holds', async () => {
        // A write may also sweep entries the contract left to expire: count around a delete, which sweeps nothing.
        await context.store.set(context.key('counted'), bytes('12345'));
        const [entries, held] = [context.store.size, context.store.bytes];
        assert.equal(await context.store.delete([context.key('counted')]), 1);
        assert.equal(context.store.size, entries - 1);
        assert.ok(held - context.store.bytes >= 5, `${held} bytes before the delete, ${context.store.bytes} after`);
      });
    },
  },
);
