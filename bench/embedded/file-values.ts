/**
 * The "large values in files beside the database" design the issue asks to measure before
 * building: each value in its own file (written to a temporary name, then renamed over the
 * key's file, so a reader sees a whole old or a whole new value), and a small row in the
 * SQLite store naming it. A bench-only prototype: it exists to decide whether the store
 * should do this for 64 KB and 1 MB values.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import type { EmbeddedSpec } from './contenders.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The prototype as a contender of the value-size section. */
export const filesBesideSpec: EmbeddedSpec = {
  id: 'sqlite-files',
  label: 'sqliteStore + value files beside (prototype)',
  takes: 'bytes',
  persistent: true,
  multiProcess: true,
  open: async (dir) => {
    const store = sqliteStore(join(dir, 'cache.db'));
    const values = join(dir, 'values');
    mkdirSync(values, { recursive: true });
    let writes = 0;
    const fileOf = (key: string) => createHash('sha1').update(key).digest('hex');
    return {
      get: async (key) => {
        const name = await store.get(key);
        if (!name) return undefined;
        try {
          return readFileSync(join(values, decoder.decode(name)));
        } catch {
          return undefined; // removed by another writer between the row and the file: a miss
        }
      },
      set: async (key, value) => {
        const name = fileOf(key);
        const temporary = join(values, `${name}.${process.pid}.${writes++}.tmp`);
        writeFileSync(temporary, value as Uint8Array);
        renameSync(temporary, join(values, name));
        await store.set(key, encoder.encode(name));
      },
      delete: async (key) => {
        await store.delete([key]);
        rmSync(join(values, fileOf(key)), { force: true });
      },
      close: () => store.close(),
    };
  },
};
