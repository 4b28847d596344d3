import { afterAll, beforeAll, describe, it } from 'vitest';
import type { EvictionPolicy } from '../../adapters/sqlite/index.ts';
import { tempSqliteStore } from '../adapters/sqlite-temp.ts';
import { storeContract } from './store-contract.ts';

// The default policy, and the two that write on every hit (their reads take another path).
for (const policy of ['least-recently-stored', 'least-recently-used', 'least-frequently-used'] as EvictionPolicy[]) {
  storeContract({ describe, it, beforeAll, afterAll }, { name: `sqlite (${policy})`, open: () => tempSqliteStore({ policy }) });
}

// Every non-empty value in its own file beside the database: the file path under the same contract.
storeContract({ describe, it, beforeAll, afterAll }, { name: 'sqlite (every value in a file)', open: () => tempSqliteStore({ fileThreshold: 1 }) });
