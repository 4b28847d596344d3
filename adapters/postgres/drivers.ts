/**
 * The optional peer the PostgreSQL store opens a URL with: `pg` (node-postgres), loaded with
 * `require` on first use (it ships CommonJS), so the entry stays synchronous and an application
 * without it gets a MissingPeerError naming the package and its install line at `postgresStore()`.
 */
import { createRequire } from 'node:module';
import { loadPeer } from '../../src/util/optional-peer.ts';
import { pgConnection, type PgQueryable, type SqlConnection } from './connection.ts';
import type { ListenClient } from './bus.ts';
import type { ResolvedPostgresOptions } from './options.ts';

/** node-postgres's module, as far as the store uses it. */
interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgQueryable & { on(event: 'error', listener: (error: Error) => void): unknown; end(): Promise<void> };
  Client: new (config: Record<string, unknown>) => ListenClient;
}

/** A node-postgres Pool: its Client class and the options it opens connections with (both public fields of `pg.Pool`). */
interface PgPool {
  Client: new (config: unknown) => ListenClient;
  options: Record<string, unknown>;
}

function loadPg(): PgModule {
  const require = createRequire(import.meta.url);
  const loaded = loadPeer('postgresStore()', 'pg', () => require('pg') as PgModule | { default: PgModule });
  return 'default' in loaded ? loaded.default : loaded;
}

/** Opens a pool on `url` with `pg`; throws MissingPeerError when it is not installed. */
export function openUrl(url: string, options: ResolvedPostgresOptions): SqlConnection {
  const pg = loadPg();
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections, connectionTimeoutMillis: options.connectTimeoutMs, application_name: 'cachette' });
  // An idle connection that breaks is dropped by the pool; the calls in flight on a broken one
  // fail on their own, and the cache reports them. Unhandled, the event would end the process.
  pool.on('error', () => undefined);
  return pgConnection(pool, () => pool.end());
}

/**
 * A function that opens a new Client for the coherence bus to listen on (adapters/postgres/bus.ts),
 * beside the store's connections: on `url` with `pg`, or with the Client class and options of
 * the application's Pool. Undefined for a single Client, which carries the application's own
 * statements and cannot listen for the bus as well (the store then offers no coherence).
 */
export function listenClients(connection: string | PgQueryable, options: ResolvedPostgresOptions): (() => ListenClient) | undefined {
  if (typeof connection === 'string') {
    return () => new (loadPg().Client)({ connectionString: connection, connectionTimeoutMillis: options.connectTimeoutMs, application_name: 'cachette bus' });
  }
  const pool = connection as Partial<PgPool>;
  if (typeof pool.Client !== 'function' || typeof pool.options !== 'object' || pool.options === null) return undefined;
  const { Client, options: poolOptions } = pool as PgPool;
  // As the pool opens its own (its options hide the password from a copy).
  return () => new Client(poolOptions);
}
