// cbor-x's "cbor-x/encode" entry, not its main one: on Node, Bun and Deno the main entry reads
// process.env.CBOR_NATIVE_ACCELERATION_DISABLED when it loads, which makes every Deno program
// need --allow-env. This one is the same Encoder (and decoder) without that read; the native
// string extractor the main entry adds is installed by runtimes/native/install.ts where it runs.
import { Encoder } from 'cbor-x/encode';
import { utf8Bytes, utf8Text } from '../util/bytes.ts';

/** Turns values into bytes and back. `id` is written into every envelope's flags. */
export interface Serializer {
  /** Stable numeric id (0–15) recorded in the envelope so the reader never guesses. */
  readonly id: number;
  /** Human-readable name, used in errors. */
  readonly name: string;
  /** Encodes a value; throws when the value cannot be represented. */
  encode(value: unknown): Uint8Array;
  /**
   * Decodes bytes produced by `encode`. The bytes may be a view into a larger buffer (a store's
   * reply): a decoded value must not keep a view of them, or it keeps that buffer alive (copy
   * what it keeps, as the built-in serializers do).
   */
  decode(bytes: Uint8Array): unknown;
}

// Plain objects travel as CBOR maps and come back as objects; Maps carry tag 259 (cbor-x adds
// it whenever mapsAsObjects is on) and come back as Maps. Unlike cbor-x's records, nothing is
// defined per message, so encoding and decoding are cheaper and every entry stands alone.
const cborEncoder = new Encoder({ useRecords: false, mapsAsObjects: true });

// The same format, decoded into values that copy their byte strings and typed arrays out of
// the input instead of viewing it (see decodeDetached).
const cborCopyingDecoder = new Encoder({ useRecords: false, mapsAsObjects: true, copyBuffers: true });

/** CBOR via cbor-x: Dates, Maps, Sets, typed arrays and BigInt survive the round trip. */
export const cborSerializer: Serializer = {
  id: 1,
  name: 'cbor',
  encode: (value) => cborEncoder.encode(value),
  decode: (bytes) => cborEncoder.decode(bytes),
};

/** JSON text of `value`; throws where JSON.stringify would lose it. */
function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify returns undefined for functions, symbols and undefined itself:
  // storing that would silently lose the value, so it is an encode error instead.
  if (text === undefined) throw new TypeError(`JSON cannot represent a value of type ${typeof value}`);
  return text;
}

/** JSON: portable and readable by other languages; Dates become strings. */
export const jsonSerializer: Serializer = {
  id: 2,
  name: 'json',
  encode: (value) => utf8Bytes(jsonText(value)),
  decode: (bytes) => JSON.parse(utf8Text(bytes)),
};

/** Raw bytes: a Uint8Array goes in and comes out untouched. */
export const rawBytesSerializer: Serializer = {
  id: 3,
  name: 'raw',
  encode(value) {
    if (value instanceof Uint8Array) return value;
    throw new TypeError(`the raw serializer takes a Uint8Array or a string, not ${describe(value)}`);
  },
  decode: (bytes) => bytes,
};

/** Raw strings, stored as UTF-8. Chosen automatically by the raw serializer for strings. */
export const rawStringSerializer: Serializer = {
  id: 4,
  name: 'raw',
  encode: (value) => utf8Bytes(rawText(value)),
  decode: (bytes) => utf8Text(bytes),
};

function rawText(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new TypeError(`the raw serializer takes a Uint8Array or a string, not ${describe(value)}`);
}

/**
 * The text whose UTF-8 bytes `serializer.encode(value)` would return, for the serializers whose
 * payload is text (JSON, raw strings), so that the text can be encoded straight into the
 * envelope; undefined for every other serializer. Throws what `encode` would.
 */
export function payloadText(serializer: Serializer, value: unknown): string | undefined {
  if (serializer === jsonSerializer) return jsonText(value);
  if (serializer === rawStringSerializer) return rawText(value);
  return undefined;
}

/**
 * The default: JSON for values JSON round-trips exactly, CBOR for everything else. It is not
 * an encoding of its own: each entry records which of the two wrote it (ids 2 and 1), so any
 * reader with either serializer reads it, and choosing per value costs one walk of it.
 */
export const autoSerializer: Serializer = {
  id: cborSerializer.id,
  name: 'auto',
  encode: (value) => (isPlainJson(value) ? jsonSerializer : cborSerializer).encode(value),
  decode: (bytes) => cborSerializer.decode(bytes),
};

// Deeper than this, a value is handed to CBOR, which reports cycles instead of overflowing.
const MAX_JSON_DEPTH = 64;

/**
 * True when `JSON.parse(JSON.stringify(value))` gives `value` back exactly: plain objects and
 * arrays of strings, finite numbers, booleans and null. Anything JSON would turn into
 * something else — a Date into a string, a Map into {}, undefined into a hole, a BigInt into a
 * throw, an object with a prototype or a toJSON into its plain form — goes to CBOR instead.
 */
function isPlainJson(value: unknown): boolean {
  if (typeof value === 'object' && value !== null) return isPlainContainer(value, 0);
  const type = typeof value;
  return type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value));
}

/**
 * An array or plain object whose members are all plain. A member that is not an object is
 * checked right in the loop, and only a nested object costs a call: most members of a cached
 * value are strings and numbers, and a call per member made the walk up to twice as slow (a
 * ~14 KiB document of 88 rows: 14–25 µs against 9–19 on Node, Bun and Deno). Both loops read
 * a member the same way: a string or boolean is plain, a number when finite (-0 becomes 0 in
 * JSON, and in CBOR too: neither keeps it), null is, and undefined (a hole included: JSON
 * would drop it or make it null), a function, a symbol or a BigInt is not.
 */
function isPlainContainer(value: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const type = typeof item;
      if (type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(item))) continue;
      if (type !== 'object' || (item !== null && !isPlainContainer(item as object, depth + 1))) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const name in value) {
    const item: unknown = (value as Record<string, unknown>)[name];
    const type = typeof item;
    if (type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(item))) continue;
    if (type !== 'object' || (item !== null && !isPlainContainer(item as object, depth + 1))) return false;
  }
  return true;
}

/**
 * `serializer.decode(bytes)` into a value that keeps no view of `bytes`, for bytes that are a
 * view into a larger buffer (a store's reply chunk, a pooled slab): a value that kept such a
 * view would keep the whole buffer alive for as long as it lives (an L1 copy, a caller's own
 * map), uncounted. The built-in serializers copy what they would otherwise view (CBOR's byte
 * strings and typed arrays, raw bytes); JSON and strings keep nothing of their input. A custom
 * serializer is called as it is: its `decode` must copy what it keeps (see {@link Serializer}).
 */
export function decodeDetached(serializer: Serializer, bytes: Uint8Array): unknown {
  if (serializer === cborSerializer || serializer === autoSerializer) return cborCopyingDecoder.decode(bytes);
  if (serializer === rawBytesSerializer) return new Uint8Array(bytes);
  return serializer.decode(bytes);
}

/** Names accepted by the `serializer` option. */
export type SerializerName = 'auto' | 'cbor' | 'json' | 'raw';

const byId = new Map<number, Serializer>([cborSerializer, jsonSerializer, rawBytesSerializer, rawStringSerializer].map((serializer) => [serializer.id, serializer]));

/** Registers a custom serializer so that entries it wrote can be read back. */
export function serializerById(id: number, custom?: Serializer): Serializer | undefined {
  if (custom && custom.id === id) return custom;
  return byId.get(id);
}

/** Resolves the `serializer` option; raw picks bytes or string per value at encode time. */
export function resolveSerializer(option: SerializerName | Serializer | undefined): Serializer {
  if (option === undefined || option === 'auto') return autoSerializer;
  if (option === 'cbor') return cborSerializer;
  if (option === 'json') return jsonSerializer;
  if (option === 'raw') return rawBytesSerializer;
  if (typeof option === 'object' && typeof option.encode === 'function' && typeof option.decode === 'function') {
    if (!Number.isInteger(option.id) || option.id < 5 || option.id > 15) {
      throw new RangeError(`a custom serializer needs an integer id from 5 to 15 (1–4 are built in), got ${String(option.id)}`);
    }
    return option;
  }
  throw new TypeError(`unknown serializer ${JSON.stringify(option)}: use 'auto', 'cbor', 'json', 'raw' or a Serializer object`);
}

/** The serializer that actually encodes `value` (raw splits into bytes and strings, auto into JSON and CBOR). */
export function serializerFor(chosen: Serializer, value: unknown): Serializer {
  if (chosen === autoSerializer) return isPlainJson(value) ? jsonSerializer : cborSerializer;
  if (chosen === rawBytesSerializer && typeof value === 'string') return rawStringSerializer;
  return chosen;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}
