// The store contract on a real PostgreSQL (a throwaway cluster), over a URL the store opens,
// over a pg Pool and a pg Client the application owns, and on a logged table.
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStore } from '../../adapters/postgres/index.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';
import { postgresInstalled, startPostgres, type Postgres } from '../adapters/postgres-server.ts';

describe.runIf(postgresInstalled)('with PostgreSQL installed', () => {
  let server: Postgres;
  const owned: Array<{ end(): Promise<void> }> = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(owned.map((client) => client.end()));
    await server?.stop();
  });

  describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'postgres (URL, unlogged)', open: () => postgresStore(server.url) });
  describeStoreContract({ describe, it, beforeAll, afterAll }, { name: 'postgres (logged table)', open: () => postgresStore({ connection: server.url, table: 'cachette_logged', unlogged: false }) });
  describeStoreContract(
    { describe, it, beforeAll, afterAll },
    {
      name: 'postgres (a pg Pool the application owns)',
      open: () => {
        const pool = new pg.Pool({ connectionString: server.url, max: 4 });
        owned.push(pool);
        return postgresStore({ connection: pool, table: 'cachette_pool' });
      },
    },
  );
  describeStoreContract(
    { describe, it, beforeAll, afterAll },
    {
      name: 'postgres (a pg Client the application owns)',
      open: async () => {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        owned.push(client);
        return postgresStore({ connection: client, table: 'cachette_client' });
      },
    },
  );
});
