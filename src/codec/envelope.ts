/**
 * The versioned binary entry envelope (DESIGN.md). Layout of version 2, numbers big-endian:
 *
 *   0      magic 0xCA — never the first byte of a decimal integer, so counters and entries
 *          can share a keyspace without being mistaken for each other
 *   1      format version (2)
 *   2      flags: low nibble serializer id, high nibble compression id
 *   3–10   created at, float64 ms since the epoch
 *   11–18  fresh for, float64 ms after creation (Infinity: no expiry)
 *   19–26  stale for, float64 ms after fresh-until (the grace window)
 *   27–30  size, uint32: the payload's length before compression, so that a reader refuses an
 *          entry too large for it before inflating a single byte of it
 *   31–34  stamp, uint32, random per write: with the creation time it tells two writes apart
 *          even within one millisecond, so these first 35 bytes identify one stored version
 *   35–36  tag count, uint16; then per tag: uint16 byte length, UTF-8 name, float64 generation
 *   …      payload
 *
 * Version 1 (written by cachette 0.1) lacked the size and the stamp; its uncompressed entries
 * are still read, its compressed ones are misses (their inflated size cannot be bounded
 * up front) and are recomputed once.
 */

import { allocBytes } from '../util/bytes.ts';

/** First byte of every envelope. */
export const MAGIC = 0xca;
/** The format version this writer produces. */
export const VERSION = 2;
/** Bytes before the tag count: a stored version is identified by this prefix. */
export const HEADER_BYTES = 35;
const FIXED_V2 = HEADER_BYTES + 2;
const FIXED_V1 = 29;

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
  /** The payload's length once decompressed (its stored length when not compressed). */
  size: number;
  /** Random per write; 0 in version 1 entries. */
  stamp: number;
  tags: readonly TagGeneration[];
  payload: Uint8Array;
}

/** What {@link encodeEnvelope} needs: `size` defaults to the payload's length, `stamp` to a random one. */
export type EnvelopeInput = Omit<Envelope, 'size' | 'stamp'> & { size?: number; stamp?: number };

/** Raised by {@link decodeEnvelope}; the engine turns it into a counted miss. */
export class CorruptEntryError extends Error {
  override readonly name = 'CorruptEntryError';
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const NO_TAGS: readonly TagGeneration[] = [];

/** Writes an envelope into one fresh buffer. */
export function encodeEnvelope(e: EnvelopeInput): Uint8Array {
  const count = e.tags.length;
  if (count > 0xffff) throw new RangeError('an entry may not carry more than 65535 tags');
  const size = e.size ?? e.payload.length;
  if (!(size >= 0 && size <= 0xffffffff)) throw new RangeError(`an entry's payload may not exceed 4 GiB, got ${size} bytes`);
  let tagNames: Uint8Array[] | undefined;
  let length = FIXED_V2 + e.payload.length;
  if (count > 0) {
    tagNames = [];
    for (let i = 0; i < count; i++) {
      const name = utf8Encoder.encode(e.tags[i]!.tag);
      if (name.length > 0xffff) throw new RangeError('a tag name may not exceed 65535 bytes');
      tagNames.push(name);
      length += 2 + name.length + 8;
    }
  }
  const out = allocBytes(length);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MAGIC;
  out[1] = VERSION;
  out[2] = (e.serializerId & 0x0f) | ((e.compressionId & 0x0f) << 4);
  view.setFloat64(3, e.createdAt);
  view.setFloat64(11, e.freshFor);
  view.setFloat64(19, e.staleFor);
  view.setUint32(27, size);
  view.setUint32(31, e.stamp ?? (Math.random() * 0x100000000) >>> 0);
  view.setUint16(35, count);
  let at = FIXED_V2;
  for (let i = 0; i < count; i++) {
    const name = tagNames![i]!;
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
  if (bytes.length < FIXED_V1) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  if (bytes[0] !== MAGIC) throw new CorruptEntryError('bad magic byte');
  const version = bytes[1];
  if (version !== VERSION && version !== 1) throw new CorruptEntryError(`unknown envelope version ${version}`);
  if (version === VERSION && bytes.length < FIXED_V2) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = bytes[2]!;
  const createdAt = view.getFloat64(3);
  const freshFor = view.getFloat64(11);
  const staleFor = view.getFloat64(19);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0)) {
    throw new CorruptEntryError('invalid timestamps');
  }
  const compressionId = flags >> 4;
  let size = -1;
  let stamp = 0;
  let at = FIXED_V1;
  if (version === VERSION) {
    size = view.getUint32(27);
    stamp = view.getUint32(31);
    at = FIXED_V2;
  } else if (compressionId !== 0) {
    throw new CorruptEntryError('a compressed version 1 entry does not record its size; it is recomputed');
  }
  const count = view.getUint16(at - 2);
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
  const payload = bytes.subarray(at);
  if (size === -1) size = payload.length;
  else if (compressionId === 0 && size !== payload.length) throw new CorruptEntryError(`payload is ${payload.length} bytes, the header says ${size}`);
  return { serializerId: flags & 0x0f, compressionId, createdAt, freshFor, staleFor, size, stamp, tags, payload };
}
