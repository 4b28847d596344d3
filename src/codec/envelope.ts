/**
 * The versioned binary entry envelope (docs/architecture.md#stored-formats). Layout of version 2, numbers big-endian:
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

import { allocBytes, shortUtf8Text, utf8BytesAfter } from '../util/bytes.ts';

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
const NO_TAGS: readonly TagGeneration[] = [];

// Numbers are moved byte by byte through one scratch float: a DataView per entry costs V8 an
// object of its own (~70 ns, more than the rest of the header), and these are 9 fixed fields.
const scratch = new Uint8Array(8);
const scratchFloat = new Float64Array(scratch.buffer);
/** True on little-endian hosts (all that JavaScript runs on today): the scratch is then filled in reverse. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function readFloat64(bytes: Uint8Array, at: number): number {
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) scratch[i] = bytes[at + 7 - i]!;
  else for (let i = 0; i < 8; i++) scratch[i] = bytes[at + i]!;
  return scratchFloat[0]!;
}

function writeFloat64(bytes: Uint8Array, at: number, value: number): void {
  scratchFloat[0] = value;
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) bytes[at + i] = scratch[7 - i]!;
  else for (let i = 0; i < 8; i++) bytes[at + i] = scratch[i]!;
}

function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = value >>> 16;
  bytes[at + 2] = value >>> 8;
  bytes[at + 3] = value;
}

function readUint16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function writeUint16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 8;
  bytes[at + 1] = value;
}

/** The header fields of an envelope, everything but the payload. */
export type EnvelopeHeader = Omit<EnvelopeInput, 'payload'>;

/** The tag names as UTF-8, checked, and the header length they make (undefined names: no tags). */
function headerLayout(header: EnvelopeHeader): { names: Uint8Array[] | undefined; length: number } {
  const count = header.tags.length;
  if (count > 0xffff) throw new RangeError('an entry may not carry more than 65535 tags');
  if (count === 0) return { names: undefined, length: FIXED_V2 };
  const names: Uint8Array[] = [];
  let length = FIXED_V2;
  for (let i = 0; i < count; i++) {
    const name = utf8Encoder.encode(header.tags[i]!.tag);
    if (name.length > 0xffff) throw new RangeError('a tag name may not exceed 65535 bytes');
    names.push(name);
    length += 2 + name.length + 8;
  }
  return { names, length };
}

/** Writes the header into the first bytes of `out`; `size` is the payload's length before compression. */
function writeHeader(out: Uint8Array, header: EnvelopeHeader, names: Uint8Array[] | undefined, size: number): void {
  if (!(size >= 0 && size <= 0xffffffff)) throw new RangeError(`an entry's payload may not exceed 4 GiB, got ${size} bytes`);
  out[0] = MAGIC;
  out[1] = VERSION;
  out[2] = (header.serializerId & 0x0f) | ((header.compressionId & 0x0f) << 4);
  writeFloat64(out, 3, header.createdAt);
  writeFloat64(out, 11, header.freshFor);
  writeFloat64(out, 19, header.staleFor);
  writeUint32(out, 27, size);
  writeUint32(out, 31, header.stamp ?? (Math.random() * 0x100000000) >>> 0);
  const count = header.tags.length;
  writeUint16(out, 35, count);
  let at = FIXED_V2;
  for (let i = 0; i < count; i++) {
    const name = names![i]!;
    writeUint16(out, at, name.length);
    out.set(name, at + 2);
    at += 2 + name.length;
    writeFloat64(out, at, header.tags[i]!.generation);
    at += 8;
  }
}

/** Writes an envelope into one fresh buffer. */
export function encodeEnvelope(input: EnvelopeInput): Uint8Array {
  const { names, length } = headerLayout(input);
  const out = allocBytes(length + input.payload.length);
  writeHeader(out, input, names, input.size ?? input.payload.length);
  out.set(input.payload, length);
  return out;
}

/**
 * Writes an envelope whose payload is `text` as UTF-8 (an uncompressed JSON or string payload),
 * encoding the text straight into the envelope's buffer: no payload buffer of its own, no copy.
 * The header's `size` is the text's UTF-8 length, whatever `header.size` says.
 */
export function encodeTextEnvelope(header: EnvelopeHeader, text: string): Uint8Array {
  const { names, length } = headerLayout(header);
  const out = utf8BytesAfter(length, text);
  writeHeader(out, header, names, out.length - length);
  return out;
}

/** The payload size an envelope written by this version declares (its bytes 27–30), read without decoding the rest. */
export function payloadSize(envelope: Uint8Array): number {
  return readUint32(envelope, 27);
}

/** Reads an envelope; throws {@link CorruptEntryError} for anything it does not understand. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < FIXED_V1) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  if (bytes[0] !== MAGIC) throw new CorruptEntryError('bad magic byte');
  const version = bytes[1];
  if (version !== VERSION && version !== 1) throw new CorruptEntryError(`unknown envelope version ${version}`);
  if (version === VERSION && bytes.length < FIXED_V2) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  const flags = bytes[2]!;
  const createdAt = readFloat64(bytes, 3);
  const freshFor = readFloat64(bytes, 11);
  const staleFor = readFloat64(bytes, 19);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0)) {
    throw new CorruptEntryError('invalid timestamps');
  }
  const compressionId = flags >> 4;
  let size = -1;
  let stamp = 0;
  let at = FIXED_V1;
  if (version === VERSION) {
    size = readUint32(bytes, 27);
    stamp = readUint32(bytes, 31);
    at = FIXED_V2;
  } else if (compressionId !== 0) {
    throw new CorruptEntryError('a compressed version 1 entry does not record its size; it is recomputed');
  }
  const count = readUint16(bytes, at - 2);
  let tags = NO_TAGS;
  if (count > 0) {
    const list: TagGeneration[] = [];
    for (let i = 0; i < count; i++) {
      if (at + 2 > bytes.length) throw new CorruptEntryError('truncated tag list');
      const length = readUint16(bytes, at);
      if (at + 2 + length + 8 > bytes.length) throw new CorruptEntryError('truncated tag list');
      let tag: string;
      try {
        tag = shortUtf8Text(bytes, at + 2, at + 2 + length);
      } catch {
        throw new CorruptEntryError('tag name is not UTF-8');
      }
      at += 2 + length;
      list.push({ tag, generation: readFloat64(bytes, at) });
      at += 8;
    }
    tags = list;
  }
  const payload = bytes.subarray(at);
  if (size === -1) size = payload.length;
  else if (compressionId === 0 && size !== payload.length) throw new CorruptEntryError(`payload is ${payload.length} bytes, the header says ${size}`);
  return { serializerId: flags & 0x0f, compressionId, createdAt, freshFor, staleFor, size, stamp, tags, payload };
}

/** An envelope rewritten by {@link staledEnvelope}, and the TTL it keeps on the store. */
export interface StaledEnvelope {
  readonly bytes: Uint8Array;
  /** Its grace in ms (at least 1), or undefined for an endless grace. */
  readonly ttlMs: number | undefined;
}

/**
 * `cache.expire` on stored bytes: when `bytes` is an envelope fresh at `now`, a copy whose
 * created-at and fresh-for make it turn stale at `now` (created-at moves back to `now` only
 * when it lies ahead of it), its grace and everything else unchanged; else undefined. The same
 * rewrite as the Redis script (adapters/shared/redis-protocol.ts, EXPIRE_ENTRIES_LUA).
 */
export function staledEnvelope(bytes: Uint8Array, now: number): StaledEnvelope | undefined {
  if (bytes.length < FIXED_V1 || bytes[0] !== MAGIC || (bytes[1] !== VERSION && bytes[1] !== 1)) return undefined;
  const createdAt = readFloat64(bytes, 3);
  const freshFor = readFloat64(bytes, 11);
  const staleFor = readFloat64(bytes, 19);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0) || !(now < createdAt + freshFor)) return undefined;
  // A copy whatever `bytes` is: Buffer#slice would be a view, and the rewrite would change the store's bytes.
  const staled = new Uint8Array(bytes);
  const since = Math.min(createdAt, now);
  writeFloat64(staled, 3, since);
  writeFloat64(staled, 11, now - since);
  return { bytes: staled, ttlMs: Number.isFinite(staleFor) ? Math.max(1, Math.ceil(staleFor)) : undefined };
}
