/**
 * The optional peer the PostgreSQL store opens a URL with: `pg` (node-postgres), loaded with
 * `require` on first use (it ships CommonJS), so the entry stays synchronous and an application
 * without it gets a MissingPeerError naming the package and its install line at `postgresStore()`.
 */
import { createRequire } from 'node:module';
import { loadPeer } from '../../src/util/optional-peer.ts';
import { pgConnection, type PgQueryable, type SqlConnection } from './connection.ts';
import type { ResolvedPostgresOptions } from './options.ts';

/** node-postgres's module, as far as the store uses it. */
interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgQueryable & { on(event: 'error', listener: (error: Error) => void): unknown; end(): Promise<void> };
}

/** Opens a pool on `url` with `pg`; throws MissingPeerError when it is not installed. */
export function openUrl(url: string, options: ResolvedPostgresOptions): SqlConnection {
  const require = createRequire(import.meta.url);
  const loaded = loadPeer('postgresStore()', 'pg', () => require('pg') as PgModule | { default: PgModule });
  const pg = 'default' in loaded ? loaded.default : loaded;
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections, connectionTimeoutMillis: options.connectTimeoutMs, application_name: 'cachette' });
  // An idle connection that breaks is dropped by the pool; the calls in flight on a broken one
  // fail on their own, and the cache reports them. Unhandled, the event would end the process.
  pool.on('error', () => undefined);
  return pgConnection(pool, () => pool.end());
}
