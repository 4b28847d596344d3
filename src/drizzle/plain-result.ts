/**
 * What is cached of a driver's answer: its data, as plain values. Drivers answer with their own
 * objects (node-postgres a `Result` holding its row parsers, libsql a `ResultSet`, …); Drizzle
 * reads only their data (`rows`, fields, counts), and its own Upstash cache stores their JSON
 * form. Here functions are dropped and class instances become plain objects, while the values
 * the cache's serializer keeps and JSON would not (Dates, byte arrays, BigInts) stay as they
 * are. The query's caller gets this same copy, so a result read from the cache and one just
 * read from the database have one shape.
 */

/** Deeper than this (a driver result is a few levels deep) a value is kept as it is. */
const MAX_DEPTH = 16;

/** The data of `value`: see the module comment. */
export function plainResult(value: unknown, depth = 0): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => (typeof item === 'function' || typeof item === 'symbol' ? null : plainResult(item, depth + 1)));
  if (value instanceof Date || ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Map || value instanceof Set) return value;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[name];
    if (typeof item === 'function' || typeof item === 'symbol' || item === undefined) continue;
    copy[name] = plainResult(item, depth + 1);
  }
  return copy;
}
