/**
 * Every table a select reads, from the SQL Drizzle built for it. Drizzle's query metadata names
 * only the tables of the top-level FROM and JOINs, so a select that reads another table through
 * a subquery (`where(inArray(users.id, db.select(…).from(orders)))`, `exists(…)`, a subquery in
 * the selection, a CTE, a set operation, a view) was cached under the outer tables alone, and a
 * write to the inner one left it stale. The SQL object behind the statement holds all of them:
 * its chunks are tables, columns (each naming its table), subqueries, views, query builders and
 * nested SQL, at any depth.
 *
 * What the chunks cannot name makes the select *unknown*, and it runs uncached: a view declared
 * `.existing()` (its definition is in the database only), and raw SQL text that names a relation
 * after FROM or JOIN (`sql\`… in (select user_id from orders)\``). A table written only inside a
 * SQL function, or named in raw text any other way, is not seen (docs/drizzle.md).
 */
import { Column, is, isSQLWrapper, Name, Param, Placeholder, SQL, StringChunk, Subquery, Table, View, ViewBaseConfig } from './drizzle-peer.ts';

/** The tables a select reads, and whether that list is complete. */
export interface ReadTables {
  tables: string[];
  /** False when the SQL reads a relation this cannot name: the select must not be cached. */
  known: boolean;
}

// Drizzle's own registered symbols for a table's schema and unaliased name (since 0.29).
const SCHEMA = Symbol.for('drizzle:Schema');
const BASE_NAME = Symbol.for('drizzle:BaseName');

/** Stands in the text for a chunk that is not raw text (a table, a column, a name, a value). */
const NOT_TEXT = '\u0000';
/** A relation named in raw text: FROM or JOIN followed by an identifier (not by a chunk, a parenthesis or a number). */
const RELATION_IN_TEXT = /\b(?:from|join)\s+[A-Za-z_"`[]/i;

/** The parts of a query builder this reads: what it selects from and joins, and the selects it is combined with. */
interface BuilderConfig {
  table?: unknown;
  joins?: ReadonlyArray<{ table?: unknown }>;
  setOperators?: ReadonlyArray<{ rightSelect?: unknown }>;
}

/** A table as Drizzle names it in query metadata: `schema.table`, or `table` in the default schema. */
export function tableName(table: object): string {
  const fields = table as Record<symbol, unknown>;
  const schema = fields[SCHEMA];
  const base = fields[BASE_NAME] as string;
  return typeof schema === 'string' && schema !== '' ? `${schema}.${base}` : base;
}

/** The tables `sql` (the SQL object of one statement) reads; see the module comment. */
export function tablesInSql(sql: unknown): ReadTables {
  const tables = new Set<string>();
  let known = true;
  let text = '';
  const seen = new Set<object>();
  // Depth first, in the order the SQL is written, so that adjacent raw text reads as one.
  const stack: unknown[] = [sql];
  while (stack.length > 0) {
    const chunk = stack.pop();
    if (typeof chunk !== 'object' || chunk === null) {
      text += NOT_TEXT; // a value (a parameter), or nothing
      continue;
    }
    if (is(chunk, StringChunk)) {
      // A list of strings up to 0.45, one string in 1.0.
      const value: unknown = chunk.value;
      text += Array.isArray(value) ? value.join('') : String(value);
      continue;
    }
    text += NOT_TEXT;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    const children: unknown[] = [];
    if (Array.isArray(chunk)) children.push(...(chunk as unknown[]));
    else if (is(chunk, Table)) tables.add(tableName(chunk));
    else if (is(chunk, Column)) tables.add(tableName(chunk.table));
    else if (is(chunk, View)) {
      const query = (chunk as unknown as Record<symbol, { query?: unknown }>)[ViewBaseConfig]?.query;
      if (query === undefined) known = false;
      else children.push(query);
    } else if (is(chunk, Subquery)) {
      const own = chunk._ as { sql: unknown; usedTables?: unknown };
      if (Array.isArray(own.usedTables)) for (const name of own.usedTables) if (typeof name === 'string') tables.add(name);
      children.push(own.sql);
    } else if (is(chunk, SQL)) children.push(...chunk.queryChunks);
    else if (is(chunk, SQL.Aliased)) children.push(chunk.sql);
    else if (is(chunk, Param) || is(chunk, Name) || is(chunk, Placeholder)) {
      // A value or an identifier: nothing read from it.
    } else if (isSQLWrapper(chunk)) {
      // A query builder embedded as a subquery: its FROM and JOINs (rendered as identifiers in
      // its SQL, not as tables), the selects it is combined with, and its SQL.
      const config = (chunk as { config?: BuilderConfig }).config;
      if (config !== undefined) {
        children.push(config.table);
        for (const join of config.joins ?? []) children.push(join.table);
        for (const operator of config.setOperators ?? []) children.push(operator.rightSelect);
      }
      children.push(chunk.getSQL());
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  if (RELATION_IN_TEXT.test(text)) known = false;
  return { tables: [...tables], known };
}
