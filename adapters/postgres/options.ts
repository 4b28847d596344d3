/** The options of `postgresStore`, checked once at creation with messages that name the option. */
import { checkKnownOptions } from '../../src/util/known-options.ts';
import { isPg, type PostgresConnection } from './connection.ts';
import { checkIdentifier } from './names.ts';
import { parsePostgresUrl } from './urls.ts';

/** Options of `postgresStore`. */
export interface PostgresStoreOptions {
  /**
   * A `postgres://` (or `postgresql://`) URL, opened by the store with a `pg` Pool; or a
   * connection the application owns and closes: a node-postgres `Pool` or `Client` (the one a
   * Drizzle or Kysely database is built on). A Pool is the one to share: a single `Client` also
   * carries the application's own transactions, and a statement of the store issued during one
   * would run inside it.
   */
  connection: string | PostgresConnection;
  /** The table (created when missing, with its index and function). Default `cachette`. */
  table?: string;
  /** Its schema. Default: the connection's current schema (the first of its `search_path`). */
  schema?: string;
  /**
   * Creates the table `UNLOGGED` (the default): no write-ahead log, so writes cost less, and
   * the table is emptied after a crash of the server and not copied to replicas (docs/stores.md).
   * `false` creates a logged table. A table that exists is used as it is, and must be of the kind asked for.
   */
  unlogged?: boolean;
  /** How often this process sweeps expired rows away, in ms. Default 60,000; 0: never (call `sweep()` yourself). */
  sweepIntervalMs?: number;
  /** Rows one sweep statement removes at most. Default 1,000. */
  sweepBatch?: number;
  /** Sweep statements one sweep sends at most, one after another. Default 10. */
  sweepBatches?: number;
  /** Bytes a value may have at most: a longer one is refused (StoreRefusedError) before it is sent. Default 64 MiB (PostgreSQL's own limit is 1 GB). */
  maxValueBytes?: number;
  /** For a URL: the most connections the store opens. Default 10. */
  maxConnections?: number;
  /** For a URL: how long opening one connection may take, in ms. Default 5,000. */
  connectTimeoutMs?: number;
}

/** The options with every default applied. */
export interface ResolvedPostgresOptions {
  connection: string | PostgresConnection;
  table: string;
  schema: string | undefined;
  unlogged: boolean;
  sweepIntervalMs: number;
  sweepBatch: number;
  sweepBatches: number;
  maxValueBytes: number;
  maxConnections: number;
  connectTimeoutMs: number;
}

const KNOWN = ['connection', 'table', 'schema', 'unlogged', 'sweepIntervalMs', 'sweepBatch', 'sweepBatches', 'maxValueBytes', 'maxConnections', 'connectTimeoutMs'] satisfies ReadonlyArray<
  keyof PostgresStoreOptions
>;

/** Checks `input` (a URL, a connection, or options) and applies the defaults; throws a TypeError or RangeError naming the option. */
export function resolveOptions(input: PostgresStoreOptions | PostgresConnection | string): ResolvedPostgresOptions {
  const options: PostgresStoreOptions = typeof input === 'string' || isPg(input) ? { connection: input } : input;
  if (options === null || typeof options !== 'object') throw new TypeError(`postgresStore: pass a postgres:// URL, a pg Pool or Client, or { connection, … }; got ${String(options)}`);
  checkKnownOptions(options, KNOWN, 'postgresStore()');
  const { connection } = options;
  if (typeof connection === 'string') parsePostgresUrl(connection);
  else if (!isPg(connection)) throw new TypeError(`postgresStore: "connection" must be a postgres:// URL or a pg Pool or Client; got ${connection === null ? 'null' : typeof connection}`);
  if (options.unlogged !== undefined && typeof options.unlogged !== 'boolean') throw new TypeError(`postgresStore: "unlogged" must be true or false, got ${JSON.stringify(options.unlogged)}`);
  return {
    connection,
    table: checkIdentifier(options.table ?? 'cachette', 'table'),
    schema: options.schema === undefined ? undefined : checkIdentifier(options.schema, 'schema'),
    unlogged: options.unlogged ?? true,
    sweepIntervalMs: count(options.sweepIntervalMs, 'sweepIntervalMs', 60_000, 0),
    sweepBatch: count(options.sweepBatch, 'sweepBatch', 1000, 1),
    sweepBatches: count(options.sweepBatches, 'sweepBatches', 10, 1),
    maxValueBytes: count(options.maxValueBytes, 'maxValueBytes', 64 * 1024 * 1024, 1),
    maxConnections: count(options.maxConnections, 'maxConnections', 10, 1),
    connectTimeoutMs: count(options.connectTimeoutMs, 'connectTimeoutMs', 5000, 1),
  };
}

function count(value: unknown, name: string, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) throw new RangeError(`postgresStore: "${name}" must be an integer ≥ ${least}, got ${String(value)}`);
  return value;
}
