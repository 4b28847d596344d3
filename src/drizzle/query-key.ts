/**
 * The key of a cached select: its SQL and the parameters the driver sends with it. Two
 * executions share an entry only when the driver would send the same statement and the same
 * values: the parameters are encoded by the engine's argument encoding (src/cache/argument-key.ts),
 * which tags every type (`NaN`, `Infinity` and `-Infinity` are not `null`, a BigInt is not the
 * number or the string of its digits, a Date is its instant, bytes are their bytes), and a plain
 * object, which drivers send as its JSON text, is encoded as that text, in its own key order.
 * Drizzle's own `hashQuery` writes the parameters with `JSON.stringify`: every non-finite number
 * became `null` (`eq(x, -Infinity)` read the rows cached for `Infinity`), and a BigInt threw.
 *
 * A value with no stable encoding (a class instance without `toJSON`, a circular structure)
 * throws a TypeError: the caller runs that query uncached.
 */
import { encodeArguments } from '../cache/argument-key.ts';
import { sha256Hex } from '../util/sha256.ts';

/** The engine key of the select `queryString` with `params`, in `namespace`. */
export function queryKey(namespace: string, queryString: string, params: readonly unknown[]): string {
  const values = encodeArguments(params.map(asSent), 'cachette/drizzle query key');
  // The length first: no statement can end where another's parameters begin.
  return `${namespace}:q:${sha256Hex(`${queryString.length}:${queryString}\n${values}`)}`;
}

/**
 * A parameter as it is keyed: plain objects (in arrays too) as the JSON text a driver sends for
 * them, wrapped so that no string poses as one. A function inside one is refused rather than
 * dropped as JSON drops it: a driver may call it (node-postgres' `toPostgres`), so what it sends
 * is not the JSON.
 */
function asSent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asSent);
  if (typeof value !== 'object' || value === null) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype ? { json: JSON.stringify(value, refuseCode) } : value;
}

function refuseCode(name: string, value: unknown): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') throw new TypeError(`cachette/drizzle query key: the parameter's "${name}" is a ${typeof value}, which has no stable encoding`);
  return value;
}
