import { Encoder } from 'cbor-x';

/** Turns values into bytes and back. `id` is written into every envelope's flags. */
export interface Serializer {
  /** Stable numeric id (0–15) recorded in the envelope so the reader never guesses. */
  readonly id: number;
  /** Human-readable name, used in errors. */
  readonly name: string;
  /** Encodes a value; throws when the value cannot be represented. */
  encode(value: unknown): Uint8Array;
  /** Decodes bytes produced by `encode`. */
  decode(bytes: Uint8Array): unknown;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

// Plain objects travel as CBOR maps and come back as objects; Maps carry tag 259 (cbor-x adds
// it whenever mapsAsObjects is on) and come back as Maps. Unlike cbor-x's records, nothing is
// defined per message, so encoding and decoding are cheaper and every entry stands alone.
const cborEncoder = new Encoder({ useRecords: false, mapsAsObjects: true });

/** CBOR via cbor-x: Dates, Maps, Sets, typed arrays and BigInt survive the round trip. */
export const cborSerializer: Serializer = {
  id: 1,
  name: 'cbor',
  encode: (value) => cborEncoder.encode(value),
  decode: (bytes) => cborEncoder.decode(bytes),
};

/** JSON: portable and readable by other languages; Dates become strings. */
export const jsonSerializer: Serializer = {
  id: 2,
  name: 'json',
  encode(value) {
    const text = JSON.stringify(value);
    // JSON.stringify returns undefined for functions, symbols and undefined itself:
    // storing that would silently lose the value, so it is an encode error instead.
    if (text === undefined) throw new TypeError(`JSON cannot represent a value of type ${typeof value}`);
    return utf8Encoder.encode(text);
  },
  decode: (bytes) => JSON.parse(utf8Decoder.decode(bytes)),
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
  encode(value) {
    if (typeof value === 'string') return utf8Encoder.encode(value);
    throw new TypeError(`the raw serializer takes a Uint8Array or a string, not ${describe(value)}`);
  },
  decode: (bytes) => utf8Decoder.decode(bytes),
};

/** Names accepted by the `serializer` option. */
export type SerializerName = 'cbor' | 'json' | 'raw';

const byId = new Map<number, Serializer>(
  [cborSerializer, jsonSerializer, rawBytesSerializer, rawStringSerializer].map((s) => [s.id, s]),
);

/** Registers a custom serializer so that entries it wrote can be read back. */
export function serializerById(id: number, custom?: Serializer): Serializer | undefined {
  if (custom && custom.id === id) return custom;
  return byId.get(id);
}

/** Resolves the `serializer` option; raw picks bytes or string per value at encode time. */
export function resolveSerializer(option: SerializerName | Serializer | undefined): Serializer {
  if (option === undefined || option === 'cbor') return cborSerializer;
  if (option === 'json') return jsonSerializer;
  if (option === 'raw') return rawBytesSerializer;
  if (typeof option === 'object' && typeof option.encode === 'function' && typeof option.decode === 'function') {
    if (!Number.isInteger(option.id) || option.id < 5 || option.id > 15) {
      throw new RangeError(`a custom serializer needs an integer id from 5 to 15 (1–4 are built in), got ${String(option.id)}`);
    }
    return option;
  }
  throw new TypeError(`unknown serializer ${JSON.stringify(option)}: use 'cbor', 'json', 'raw' or a Serializer object`);
}

/** The serializer that actually encodes `value` (raw splits into bytes and strings). */
export function serializerFor(chosen: Serializer, value: unknown): Serializer {
  if (chosen === rawBytesSerializer && typeof value === 'string') return rawStringSerializer;
  return chosen;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}
