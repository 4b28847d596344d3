/**
 * One throwaway PostgreSQL cluster per test file (bench/support/postgres.ts starts it: initdb in a
 * temporary directory, a free loopback port), for the PostgreSQL store's tests.
 */
import { installedServerBin, startPostgres, type Postgres } from '../../bench/support/postgres.ts';

/** True where Debian's postgresql package is installed (the tests run only there). */
export const postgresInstalled = installedServerBin() !== undefined;

export { startPostgres, type Postgres };
