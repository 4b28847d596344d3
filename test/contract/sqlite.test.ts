import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { EvictionPolicy, SqliteStore } from '../../adapters/sqlite/index.ts';
import { describeStoreContract, type StoreTestContext } from '../../src/store/testing/index.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { bytes, text } from '../support/suite-api.ts';

/** What only this store has, on the store the contract opened: a synchronous read of what it holds. */
function syncReads(context: StoreTestContext<SqliteStore>): void {
  it('getSync reads what the asynchronous calls wrote, as get does', async () => {
    const key = context.key('sync');
    await context.store.set(key, bytes('written'));
    assert.equal(text(context.store.getSync(key)), 'written');
    assert.deepEqual(context.store.getSync(key), await context.store.get(key));
    await context.store.delete([key]);
    assert.equal(context.store.getSync(key), undefined);
  });
}

// The default policy, and the two that write on every hit (their reads take another path).
for (const policy of ['least-recently-stored', 'least-recently-used', 'least-frequently-used'] as EvictionPolicy[]) {
  describeStoreContract({ describe, it, beforeAll, afterAll }, { name: `sqlite (${policy})`, open: () => tempSqliteStore({ policy }), additionalTests: syncReads });
}

// Every non-empty value in its own file beside the database: the file path under the same contract.
describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'sqlite (every value in a file)', open: () => tempSqliteStore({ fileThreshold: 1 }), additionalTests: syncReads });
