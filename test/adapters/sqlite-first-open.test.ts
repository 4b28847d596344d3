import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultBinding, openConnection, type SqliteConnection } from '../../adapters/sqlite/binding.ts';
import { setupSchema } from '../../adapters/sqlite/schema.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A connection on which another process creates the layout right after the first read of the
 * database header (application_id) and before the next statement: the interleaving two
 * processes opening a new file together can hit.
 */
function racedConnection(path: string): SqliteConnection {
  const db = openConnection(path, defaultBinding());
  let raced = false;
  return {
    ...db,
    binding: db.binding,
    prepareValue: (sql) => db.prepareValue(sql),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    prepare(sql) {
      const statement = db.prepare(sql);
      if (!raced && sql === 'PRAGMA application_id') {
        raced = true;
        const get = statement.get.bind(statement);
        return Object.assign(Object.create(statement) as typeof statement, {
          get: (...params: Parameters<typeof statement.get>) => {
            const header = get(...params);
            const other = openConnection(path, defaultBinding());
            try {
              setupSchema(other, 'normal');
            } catch (error) {
              // Our read transaction may hold the file: the other process would retry later.
              if (!/busy|locked/i.test(String(error))) throw error;
            } finally {
              other.close();
            }
            return header;
          },
        });
      }
      return statement;
    },
  };
}

describe('the SQLite store opening a new file while another process creates it', () => {
  it('never takes the other process’s fresh layout for a foreign database', () => {
    dir = mkdtempSync(join(tmpdir(), 'cachette-first-open-'));
    const path = join(dir, 'shared.db');
    const db = racedConnection(path);
    try {
      let seed: number | undefined;
      for (let attempt = 0; attempt < 20 && seed === undefined; attempt++) {
        try {
          seed = setupSchema(db, 'normal');
        } catch (error) {
          if (!/busy|locked/i.test(String(error))) throw error;
        }
      }
      expect(Number.isSafeInteger(seed)).toBe(true);
    } finally {
      db.close();
    }
  });
});
