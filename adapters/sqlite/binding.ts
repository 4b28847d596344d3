/**
 * The SQLite binding of each runtime behind one small interface: better-sqlite3 on Node,
 * bun:sqlite on Bun, node:sqlite on Deno (Deno cannot load better-sqlite3: it is a nan addon,
 * and Deno loads only Node-API ones). Each is loaded synchronously through `createRequire`, and
 * only the one in use, so `sqliteStore()` returns a working store at once and an edge bundle,
 * which never imports this adapter, never sees any of them.
 */
import { createRequire } from 'node:module';
import { loadPeer } from '../../src/util/optional-peer.ts';

/** Which SQLite binding a store runs on. */
export type SqliteBindingName = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';

/** A value a statement accepts as a parameter. */
export type SqliteParam = string | number | null | Uint8Array;

/** One result row, column name → value (blobs arrive as Uint8Array, Buffer on Node). */
export type SqliteRow = Record<string, unknown>;

/** A prepared statement: the shape better-sqlite3, bun:sqlite and node:sqlite share. */
export interface SqliteStatement {
  /** The first row, or undefined when there is none. */
  get(...params: SqliteParam[]): SqliteRow | undefined;
  /** Every row. */
  all(...params: SqliteParam[]): SqliteRow[];
  /** Runs a statement that returns no rows; `changes` counts the rows it wrote. */
  run(...params: SqliteParam[]): { changes: number | bigint };
}

/** An open database connection. */
export interface SqliteConnection {
  readonly binding: SqliteBindingName;
  prepare(sql: string): SqliteStatement;
  /** A statement that answers the first column of its first row (undefined: no row), without a row object where the binding allows. */
  prepareValue(sql: string): (...params: SqliteParam[]) => unknown;
  /** Runs one or more statements that take no parameters. */
  exec(sql: string): void;
  close(): void;
}

const require = createRequire(import.meta.url);

/** The binding this runtime has natively or through the optional peer dependency. */
export function defaultBinding(): SqliteBindingName {
  if ('Bun' in globalThis) return 'bun:sqlite';
  if ('Deno' in globalThis) return 'node:sqlite';
  return 'better-sqlite3';
}

/**
 * Opens `path` with `binding`. SQLite's own busy handler is off (timeout 0): a locked database
 * throws SQLITE_BUSY at once and the store retries asynchronously, so a waiting call never
 * blocks the event loop. Throws a TypeError when the binding cannot be loaded here.
 */
export function openConnection(path: string, binding: SqliteBindingName): SqliteConnection {
  switch (binding) {
    case 'better-sqlite3': {
      // An optional peer: a missing one is named with the command that installs it.
      const Database = loadPeer(
        'sqliteStore()',
        'better-sqlite3',
        () => load<new (path: string, options: { timeout: number }) => NativeDatabase>(binding, 'Node 20 or later'),
        'npm install better-sqlite3@12',
      );
      const db = new Database(path, { timeout: 0 });
      return {
        ...wrap(binding, db),
        prepareValue: (sql) => {
          const statement = (db.prepare(sql) as NativeStatement & { pluck(): NativeStatement }).pluck();
          return statement.get.bind(statement);
        },
      };
    }
    case 'bun:sqlite': {
      const { Database } = load<{ Database: new (path: string, options: { create: boolean; readwrite: boolean }) => NativeDatabase }>(binding, 'bun:sqlite exists only on Bun');
      const db = new Database(path, { create: true, readwrite: true });
      // bun:sqlite answers null for "no row"; the others, and the store, use undefined.
      return {
        binding,
        prepare: (sql) => {
          const statement = db.prepare(sql);
          return {
            get: (...params) => statement.get(...params) ?? undefined,
            all: (...params) => statement.all(...params),
            run: (...params) => statement.run(...params),
          };
        },
        prepareValue: (sql) => firstColumn(db.prepare(sql)),
        exec: (sql) => db.exec(sql),
        close: () => db.close(),
      };
    }
    case 'node:sqlite': {
      const { DatabaseSync } = load<{ DatabaseSync: new (path: string) => NativeDatabase }>(binding, 'node:sqlite needs Deno 2.2+ or Node 22.13+');
      const db = new DatabaseSync(path);
      return { ...wrap(binding, db), prepareValue: (sql) => firstColumn(db.prepare(sql)) };
    }
    default:
      throw new TypeError(`sqliteStore: unknown binding "${String(binding)}"; use "better-sqlite3", "bun:sqlite" or "node:sqlite"`);
  }
}

/** What the three native database objects have in common. */
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): unknown;
  close(): unknown;
}

interface NativeStatement {
  get(...params: SqliteParam[]): SqliteRow | null | undefined;
  all(...params: SqliteParam[]): SqliteRow[];
  run(...params: SqliteParam[]): { changes: number | bigint };
}

// better-sqlite3 and node:sqlite statements already answer undefined for "no row", so they are
// handed out as they are: no wrapper call on the hot path.
function wrap(binding: SqliteBindingName, db: NativeDatabase): Omit<SqliteConnection, 'prepareValue'> {
  return {
    binding,
    prepare: (sql) => db.prepare(sql) as SqliteStatement,
    exec: (sql) => void db.exec(sql),
    close: () => void db.close(),
  };
}

/** The first column of the first row, for bindings that always answer a row object. */
function firstColumn(statement: NativeStatement): (...params: SqliteParam[]) => unknown {
  return (...params) => {
    const row = statement.get(...params);
    if (row) for (const column in row) return row[column];
    return undefined;
  };
}

function load<T>(binding: SqliteBindingName, hint: string): T {
  try {
    return require(binding) as T;
  } catch (error) {
    throw new TypeError(`sqliteStore: cannot load the SQLite binding "${binding}" on this runtime (${hint})`, { cause: error });
  }
}
