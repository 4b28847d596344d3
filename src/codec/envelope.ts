/**
 * The versioned binary entry envelope (DESIGN.md). Layout, all numbers big-endian:
 *
 *   0      magic 0xCA — never the first byte of a decimal integer, so counters and entries
 *          can share a keyspace without being mistaken for each other
 *   1      format version (1)
 *   2      flags: low nibble serializer id, high nibble compression id
 *   3–10   created at, float64 ms since the epoch
 *   11–18  fresh for, float64 ms after creation (Infinity: no expiry)
 *   19–26  stale for, float64 ms after fresh-until (the grace window)
 *   27–28  tag count, uint16; then per tag: uint16 byte length, UTF-8 name, float64 generation
 *   …      payload
 */

import { allocBytes } from '../util/bytes.ts';

/** First byte of every envelope. */
export const MAGIC = 0xca;
/** The only format version this reader understands. */
export const VERSION = 1;
const FIXED = 29;

/** A tag and the generation that was read before the value was computed. */
export interface TagGeneration {
  tag: string;
  generation: number;
}

/** Everything an envelope holds, payload still serialized (and maybe compressed). */
export interface Envelope {
  serializerId: number;
  compressionId: number;
  createdAt: number;
  freshFor: number;
  staleFor: number;
  tags: readonly TagGeneration[];
  payload: Uint8Array;
}

/** Raised by {@link decodeEnvelope}; the engine turns it into a counted miss. */
export class CorruptEntryError extends Error {
  override readonly name = 'CorruptEntryError';
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const NO_TAGS: readonly TagGeneration[] = [];

/** Writes an envelope into one fresh buffer. */
export function encodeEnvelope(e: Envelope): Uint8Array {
  const count = e.tags.length;
  if (count > 0xffff) throw new RangeError('an entry may not carry more than 65535 tags');
  const tagNames: Uint8Array[] = [];
  let size = FIXED + e.payload.length;
  for (let i = 0; i < count; i++) {
    const name = utf8Encoder.encode(e.tags[i]!.tag);
    if (name.length > 0xffff) throw new RangeError('a tag name may not exceed 65535 bytes');
    tagNames.push(name);
    size += 2 + name.length + 8;
  }
  const out = allocBytes(size);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MAGIC;
  out[1] = VERSION;
  out[2] = (e.serializerId & 0x0f) | ((e.compressionId & 0x0f) << 4);
  view.setFloat64(3, e.createdAt);
  view.setFloat64(11, e.freshFor);
  view.setFloat64(19, e.staleFor);
  view.setUint16(27, count);
  let at = FIXED;
  for (let i = 0; i < count; i++) {
    const name = tagNames[i]!;
    view.setUint16(at, name.length);
    out.set(name, at + 2);
    at += 2 + name.length;
    view.setFloat64(at, e.tags[i]!.generation);
    at += 8;
  }
  out.set(e.payload, at);
  return out;
}

/** Reads an envelope; throws {@link CorruptEntryError} for anything it does not understand. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < FIXED) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  if (bytes[0] !== MAGIC) throw new CorruptEntryError('bad magic byte');
  if (bytes[1] !== VERSION) throw new CorruptEntryError(`unknown envelope version ${bytes[1]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = bytes[2]!;
  const createdAt = view.getFloat64(3);
  const freshFor = view.getFloat64(11);
  const staleFor = view.getFloat64(19);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0)) {
    throw new CorruptEntryError('invalid timestamps');
  }
  const count = view.getUint16(27);
  let at = FIXED;
  let tags = NO_TAGS;
  if (count > 0) {
    const list: TagGeneration[] = [];
    for (let i = 0; i < count; i++) {
      if (at + 2 > bytes.length) throw new CorruptEntryError('truncated tag list');
      const len = view.getUint16(at);
      if (at + 2 + len + 8 > bytes.length) throw new CorruptEntryError('truncated tag list');
      let tag: string;
      try {
        tag = utf8Decoder.decode(bytes.subarray(at + 2, at + 2 + len));
      } catch {
        throw new CorruptEntryError('tag name is not UTF-8');
      }
      at += 2 + len;
      list.push({ tag, generation: view.getFloat64(at) });
      at += 8;
    }
    tags = list;
  }
  return {
    serializerId: flags & 0x0f,
    compressionId: flags >> 4,
    createdAt,
    freshFor,
    staleFor,
    tags,
    payload: bytes.subarray(at),
  };
}
