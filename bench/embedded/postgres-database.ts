/**
 * A database of its own for one workload of the postgres contender, on the run's throwaway
 * cluster: created empty, dropped (with every table and function the store made in it) when the
 * workload closes, so no workload reads or pays for another's rows and dead tuples.
 */
import pg from 'pg';

/** One workload's database. */
export interface FreshDatabase {
  /** postgres:// URL of the new database. */
  url: string;
  /** Drops it; the store on it must be closed first. */
  drop(): Promise<void>;
}

/** On the server of `serverUrl` (a URL of its maintenance database), a new database named for `name`. */
export async function freshDatabase(serverUrl: string, name: string): Promise<FreshDatabase> {
  const database = `bench_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  // The name is made of [a-z0-9_] above: no quoting beyond the identifier's quotes is needed.
  await admin(`DROP DATABASE IF EXISTS "${database}"`);
  await admin(`CREATE DATABASE "${database}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE "${database}" WITH (FORCE)`) };
}
