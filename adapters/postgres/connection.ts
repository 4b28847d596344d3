/**
 * The one thing the PostgreSQL store asks of its driver, node-postgres (`pg`): run one statement
 * with parameters and hand back its rows as arrays. The driver is a `Pool` or a `Client` (the
 * one `drizzle-orm/node-postgres` or Kysely's `PostgresDialect` is given), told apart by its
 * shape, so the store imports none of `pg`'s types and an application needs none of its
 * typings. Results arrive as text (node-postgres reads no binary results): the store parses
 * them with parsers of its own, so that type parsers the application set on `pg` change nothing.
 *
 * A cell is a number (an `int4` column), bytes (`bytea`), a string (`text`) or null: every
 * statement of the store selects only those (statements.ts).
 */

/** A cell of a row the store reads. */
export type Cell = number | Uint8Array | string | null;

/** What the store runs its statements on. */
export interface SqlConnection {
  /**
   * Runs one statement. `prepared`: the text is one of the store's fixed ones, worth preparing
   * once per connection (texts that vary with a batch size are not, so no cache grows with them).
   */
  query(text: string, params: readonly unknown[], prepared: boolean): Promise<Cell[][]>;
  /** Ends the connections, when the store opened them. */
  close(): Promise<void>;
}

/** A node-postgres `Pool` or `Client`, as far as the store uses it. */
export interface PgQueryable {
  query(config: PgQueryConfig): Promise<{ rows: unknown[][] }>;
  connect(...args: never[]): unknown;
}

/** The query config the store passes to node-postgres. */
export interface PgQueryConfig {
  text: string;
  values: unknown[];
  name?: string;
  rowMode: 'array';
  types: { getTypeParser(oid: number, format?: string): (value: unknown) => unknown };
}

/** A connection an application passes to `postgresStore`: a `pg` Pool or Client. */
export type PostgresConnection = PgQueryable;

/** True for a node-postgres Pool or Client (anything with `query` and `connect`). */
export function isPg(value: unknown): value is PgQueryable {
  return typeof value === 'object' && value !== null && typeof (value as Partial<PgQueryable>).query === 'function' && typeof (value as Partial<PgQueryable>).connect === 'function';
}

const BYTEA = 17;
const INT4 = 23;
// Text results: a bytea is `\x` and hex digits (bytea_output 'hex', the default since 9.0), an
// int4 decimal digits; anything else stays text.
const TEXT_CELLS = {
  getTypeParser(oid: number): (value: unknown) => unknown {
    return oid === BYTEA ? readBytea : oid === INT4 ? readInt4 : keep;
  },
};
const readBytea = (value: unknown): Uint8Array => {
  const text = value as string;
  if (!text.startsWith('\\x')) throw new Error("the server sends bytea in the 'escape' format; set bytea_output = 'hex' (the default) for the store's connections");
  return Buffer.from(text.slice(2), 'hex');
};
const readInt4 = (value: unknown): number => Number(value);
const keep = (value: unknown): unknown => value;

/** Prepared statement names, one per text, shared by every store of the process (a name must always mean one text). */
const statementNames = new Map<string, string>();

/** The store's statements over a node-postgres Pool or Client; `end` ends it when the store owns it. */
export function pgConnection(client: PgQueryable, end?: () => Promise<void>): SqlConnection {
  return {
    async query(text, params, prepared) {
      const config: PgQueryConfig = { text, values: params as unknown[], rowMode: 'array', types: TEXT_CELLS };
      if (prepared) {
        let name = statementNames.get(text);
        if (name === undefined) statementNames.set(text, (name = `cachette_${statementNames.size + 1}`));
        config.name = name;
      }
      return (await client.query(config)).rows as Cell[][];
    },
    close: end ?? (async () => {}),
  };
}
