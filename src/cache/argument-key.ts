/**
 * The stable encoding of a call's arguments that `cache.wrap` and `@cached` build their default
 * keys from. Two calls get the same key exactly when their arguments are the same data:
 *
 * - plain objects are encoded with their keys sorted, so `{ a, b }` and `{ b, a }` are one key;
 *   a property set to `undefined` counts as absent (as in JSON);
 * - `undefined` and `null` stay distinct, except that trailing `undefined` arguments are
 *   dropped: `f(1)` and `f(1, undefined)` are one call, as default parameters treat them;
 * - numbers keep NaN and ±Infinity, and -0 is 0 (SameValueZero, as Map keys compare);
 *   BigInt is `1n`, never the number 1; strings are JSON-quoted, so no string can pose as
 *   another value or as an argument separator;
 * - Dates (by time; an invalid Date is `Date(NaN)`), Maps and Sets (entries in sorted order,
 *   so insertion order does not matter), arrays (holes are `undefined`), RegExps, URLs,
 *   URLSearchParams, ArrayBuffers, typed arrays and DataViews (by their bytes) are encoded
 *   by content, each tagged with its type;
 * - a class instance with `toJSON()` (Decimal, Luxon, Temporal…) is its class name plus its
 *   JSON form.
 *
 * Anything else is a TypeError naming the argument path (`args[0].user`) and what was found:
 * functions, symbols, promises, symbol-keyed properties, other class instances, circular
 * references and nesting deeper than {@link MAX_DEPTH}. Pass a `key(...args)` function for
 * such calls. Pure: no clock, no I/O.
 */
import { toHex } from '../util/hex.ts';

/** Nesting deeper than this is refused, so a hostile argument cannot exhaust the stack. */
export const MAX_DEPTH = 64;

/** Encodes the arguments of one call; `label` names the wrapped function in errors. */
export function encodeArguments(args: readonly unknown[], label: string): string {
  let length = args.length;
  while (length > 0 && args[length - 1] === undefined) length--;
  const encoder = new Encoder(label);
  const parts: string[] = [];
  for (let i = 0; i < length; i++) parts.push(encoder.encode(args[i], `args[${i}]`, 0));
  return parts.join(',');
}

class Encoder {
  /** Objects on the path from the argument to the value being encoded: a repeat is a cycle. */
  readonly #ancestors = new Set<object>();

  constructor(readonly label: string) {}

  encode(value: unknown, path: string, depth: number): string {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return Object.is(value, -0) ? '0' : String(value);
      case 'bigint':
        return `${value}n`;
      case 'boolean':
        return String(value);
      case 'undefined':
        return 'undefined';
      case 'function':
        return this.#refuse(path, 'a function');
      case 'symbol':
        return this.#refuse(path, 'a symbol');
    }
    if (value === null) return 'null';
    if (depth >= MAX_DEPTH) return this.#refuse(path, `nested deeper than ${MAX_DEPTH} levels`);
    const object = value as object;
    if (this.#ancestors.has(object)) return this.#refuse(path, 'a circular reference');
    this.#ancestors.add(object);
    try {
      return this.#object(object, path, depth + 1);
    } finally {
      this.#ancestors.delete(object);
    }
  }

  #object(value: object, path: string, depth: number): string {
    if (Array.isArray(value)) {
      const items: string[] = [];
      for (let i = 0; i < value.length; i++) items.push(this.encode(value[i], `${path}[${i}]`, depth));
      return `[${items.join(',')}]`;
    }
    if (isPlainObject(value)) {
      if (Object.getOwnPropertySymbols(value).some((symbol) => Object.prototype.propertyIsEnumerable.call(value, symbol))) {
        return this.#refuse(path, 'an object with symbol keys');
      }
      const record = value as Record<string, unknown>;
      const fields: string[] = [];
      for (const name of Object.keys(record).sort()) {
        const field = record[name];
        if (field !== undefined) fields.push(`${JSON.stringify(name)}:${this.encode(field, `${path}.${name}`, depth)}`);
      }
      return `{${fields.join(',')}}`;
    }
    if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'NaN' : value.toISOString()})`;
    if (value instanceof Map) {
      const entries = [...value].map(([k, v], i) => `${this.encode(k, `${path}.<key ${i}>`, depth)}=>${this.encode(v, `${path}.<value ${i}>`, depth)}`);
      return `Map{${entries.sort().join(',')}}`;
    }
    if (value instanceof Set) {
      const items = [...value].map((item, i) => this.encode(item, `${path}.<item ${i}>`, depth));
      return `Set[${items.sort().join(',')}]`;
    }
    if (value instanceof RegExp) return `RegExp(${JSON.stringify(value.source)},${JSON.stringify(value.flags)})`;
    if (value instanceof URL) return `URL(${JSON.stringify(value.href)})`;
    if (value instanceof URLSearchParams) return `URLSearchParams(${JSON.stringify(value.toString())})`;
    if (value instanceof ArrayBuffer) return `ArrayBuffer(${toHex(new Uint8Array(value))})`;
    if (ArrayBuffer.isView(value)) {
      return `${value.constructor.name}(${toHex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength))})`;
    }
    if (typeof (value as { then?: unknown }).then === 'function') return this.#refuse(path, 'a promise (await it before the call)');
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    const className = value.constructor?.name || 'an object without a prototype chain to Object';
    if (typeof toJSON === 'function') return `${className}(${this.encode(toJSON.call(value), `${path}.toJSON()`, depth)})`;
    return this.#refuse(path, `an instance of ${className} (it has no toJSON())`);
  }

  #refuse(path: string, what: string): never {
    throw new TypeError(`cachette: ${this.label}: ${path} is ${what}, which has no stable encoding for the cache key; pass a key(...args) option that builds the key`);
  }
}

/** An object literal, `Object.create(null)`, or an object literal from another realm. */
function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}
