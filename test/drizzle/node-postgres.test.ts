// cachette/drizzle on a PostgreSQL server through node-postgres, where it is installed (Debian's
// postgresql package; bench/race starts the same throwaway cluster): readers on connections of
// their own run while a transaction is open, which PGlite's single connection cannot show.
import { describe } from 'vitest';
import { installedServerBin, startPostgres } from '../../bench/support/postgres.ts';
import { nodePostgresBackend } from './databases.ts';
import { drizzleSuite } from './drizzle-suite.ts';

describe.runIf(installedServerBin() !== undefined)('with PostgreSQL installed', () => {
  drizzleSuite({
    name: 'PostgreSQL server (drizzle-orm/node-postgres)',
    concurrentTransactions: true,
    batch: false,
    async open() {
      const server = await startPostgres();
      const backend = await nodePostgresBackend(server.url);
      return {
        ...backend,
        async close() {
          await backend.close();
          await server.stop();
        },
      };
    },
  });
});
