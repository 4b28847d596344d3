/**
 * The table and schema names the PostgreSQL store is given: checked once (a plain identifier,
 * short enough that the names derived from the table still fit PostgreSQL's 63 bytes), then
 * always written double-quoted, so that no name ever reaches a statement as SQL.
 */

/** The longest table name: the index and the function are named after it, with a suffix. */
export const MAX_TABLE_NAME = 40;
/** PostgreSQL's identifier limit (NAMEDATALEN - 1). */
const MAX_IDENTIFIER = 63;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks `name` (a `table` or `schema` option) or throws a TypeError naming the accepted form. */
export function checkIdentifier(name: unknown, option: 'table' | 'schema'): string {
  const limit = option === 'table' ? MAX_TABLE_NAME : MAX_IDENTIFIER;
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || name.length > limit) {
    throw new TypeError(`postgresStore: "${option}" must be a name of letters, digits and underscores, not starting with a digit, at most ${limit} characters; got ${JSON.stringify(name)}`);
  }
  return name;
}

/** `name` as a quoted identifier. Only checked names get here, so there is no quote inside to double. */
export function quoted(name: string): string {
  return `"${name}"`;
}

/** The quoted, schema-qualified name of `name` (unqualified: found through the connection's search_path). */
export function qualified(schema: string | undefined, name: string): string {
  return schema === undefined ? quoted(name) : `${quoted(schema)}.${quoted(name)}`;
}
