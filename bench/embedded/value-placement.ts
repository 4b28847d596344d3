/**
 * The two placements of a large value the store offers, as extra contenders of the value-size
 * section: every value inside the database, and every value of 1 KiB or more in its own file
 * beside it. Comparing them at 64 KB and 1 MB is what chose the default `fileThreshold`.
 */
import { join } from 'node:path';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { BENCH_TIMEOUT_MS, type EmbeddedSpec } from './contenders.ts';
import { storeKv } from './store-kv.ts';

const placement = (id: string, label: string, fileThreshold: number): EmbeddedSpec => ({
  id,
  label,
  takes: 'bytes',
  persistent: true,
  multiProcess: true,
  open: async (dir) => storeKv(sqliteStore({ path: join(dir, 'cache.db'), fileThreshold, timeoutMs: BENCH_TIMEOUT_MS })),
});

/** Inside the database whatever the size, then in files from 1 KiB. */
export const PLACEMENTS: readonly EmbeddedSpec[] = [
  placement('sqlite-inline', 'sqliteStore, every value inside the database', Infinity),
  placement('sqlite-files', 'sqliteStore, values ≥ 1 KiB in files beside it', 1024),
];
