/**
 * Writes and reads the versioned binary entry envelope. Its byte layout (both versions) is
 * defined once in src/store/layout/envelope.ts, with the staling every store shares; this
 * file takes every offset from there. Version 1 (written by cachette 0.1) lacked the size and
 * the stamp; its uncompressed entries are still read, its compressed ones are misses (their
 * inflated size cannot be bounded up front) and are recomputed once.
 */

import {
  CREATED_AT_OFFSET,
  FIXED_BYTES,
  FIXED_BYTES_V1,
  FLAGS_OFFSET,
  FRESH_FOR_OFFSET,
  HEADER_BYTES,
  MAGIC,
  SIZE_OFFSET,
  STALE_FOR_OFFSET,
  STAMP_OFFSET,
  VERSION,
  VERSION_1,
  VERSION_OFFSET,
} from '../store/layout/envelope.ts';
import { readFloat64, readUint16, readUint32, writeFloat64, writeUint16, writeUint32 } from '../util/big-endian.ts';
import type { HeadedText } from '../store/text-entry.ts';
import { allocBytes, shortUtf8Text, utf8BytesAfter } from '../util/bytes.ts';

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

/** The header fields of an envelope, everything but the payload. */
export type EnvelopeHeader = Omit<EnvelopeInput, 'payload'>;

/** The layout of a header without tags: one object for every such header. */
const NO_TAGS_LAYOUT: { readonly names: undefined; readonly length: number } = { names: undefined, length: FIXED_BYTES };

/** The tag names as UTF-8, checked, and the header length they make (undefined names: no tags). */
function headerLayout(header: EnvelopeHeader): { readonly names: Uint8Array[] | undefined; readonly length: number } {
  const count = header.tags.length;
  if (count > 0xffff) throw new RangeError('an entry may not carry more than 65535 tags');
  if (count === 0) return NO_TAGS_LAYOUT;
  const names: Uint8Array[] = [];
  let length = FIXED_BYTES;
  for (let i = 0; i < count; i++) {
    const name = utf8Encoder.encode(header.tags[i]!.tag);
    if (name.length > 0xffff) throw new RangeError('a tag name may not exceed 65535 bytes');
    names.push(name);
    length += 2 + name.length + 8;
  }
  return { names, length };
}

/**
 * Writes the header into `out` from `at` on; `size` is the payload's length before
 * compression, `stamp` the write's (see src/store/layout/envelope.ts).
 */
function writeHeader(out: Uint8Array, at: number, header: EnvelopeHeader, names: Uint8Array[] | undefined, size: number, stamp: number): void {
  if (!(size >= 0 && size <= 0xffffffff)) throw new RangeError(`an entry's payload may not exceed 4 GiB, got ${size} bytes`);
  out[at] = MAGIC;
  out[at + VERSION_OFFSET] = VERSION;
  out[at + FLAGS_OFFSET] = (header.serializerId & 0x0f) | ((header.compressionId & 0x0f) << 4);
  writeFloat64(out, at + CREATED_AT_OFFSET, header.createdAt);
  writeFloat64(out, at + FRESH_FOR_OFFSET, header.freshFor);
  writeFloat64(out, at + STALE_FOR_OFFSET, header.staleFor);
  writeUint32(out, at + SIZE_OFFSET, size);
  writeUint32(out, at + STAMP_OFFSET, stamp);
  const count = header.tags.length;
  writeUint16(out, at + HEADER_BYTES, count);
  let pos = at + FIXED_BYTES;
  for (let i = 0; i < count; i++) {
    const name = names![i]!;
    writeUint16(out, pos, name.length);
    out.set(name, pos + 2);
    pos += 2 + name.length;
    writeFloat64(out, pos, header.tags[i]!.generation);
    pos += 8;
  }
}

/** The header's stamp, or a random one. */
function stampOf(header: EnvelopeHeader): number {
  return header.stamp ?? (Math.random() * 0x100000000) >>> 0;
}

/** Writes an envelope into one fresh buffer. */
export function encodeEnvelope(input: EnvelopeInput): Uint8Array {
  const { names, length } = headerLayout(input);
  const out = allocBytes(length + input.payload.length);
  writeHeader(out, 0, input, names, input.size ?? input.payload.length, stampOf(input));
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
  writeHeader(out, 0, header, names, out.length - length, stampOf(header));
  return out;
}

/**
 * An envelope whose payload is text, kept as its header and the text until a store writes it
 * (see src/store/text-entry.ts): its bytes are the ones {@link encodeTextEnvelope} writes,
 * stamp included, however often and wherever they are written. {@link writeHead} writes the
 * header for the text's UTF-8 length, which a writer knows once it has written the text.
 */
export class TextEnvelope implements HeadedText {
  readonly text: string;
  readonly headLength: number;
  readonly #header: EnvelopeHeader;
  readonly #names: Uint8Array[] | undefined;
  readonly #stamp: number;
  /** The text's UTF-8 length, once known (-1 before). */
  #textBytes = -1;
  #bytes: Uint8Array | undefined;

  constructor(header: EnvelopeHeader, text: string) {
    const { names, length } = headerLayout(header);
    this.text = text;
    this.headLength = length;
    this.#header = header;
    this.#names = names;
    this.#stamp = stampOf(header);
  }

  /** Its byte length: exact once written or made, or when the text is ASCII. */
  get size(): number {
    return this.headLength + (this.#textBytes < 0 ? this.text.length : this.#textBytes);
  }

  writeHead(out: Uint8Array, at: number, textBytes: number): void {
    this.#textBytes = textBytes;
    writeHeader(out, at, this.#header, this.#names, textBytes, this.#stamp);
  }

  bytes(): Uint8Array {
    if (this.#bytes !== undefined) return this.#bytes;
    const out = utf8BytesAfter(this.headLength, this.text);
    this.writeHead(out, 0, out.length - this.headLength);
    this.#bytes = out;
    return out;
  }
}

/** The payload size an envelope written by this version declares, read without decoding the rest. */
export function payloadSize(envelope: Uint8Array): number {
  return readUint32(envelope, SIZE_OFFSET);
}

/** Reads an envelope; throws {@link CorruptEntryError} for anything it does not understand. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < FIXED_BYTES_V1) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  if (bytes[0] !== MAGIC) throw new CorruptEntryError('bad magic byte');
  const version = bytes[VERSION_OFFSET];
  if (version !== VERSION && version !== VERSION_1) throw new CorruptEntryError(`unknown envelope version ${version}`);
  if (version === VERSION && bytes.length < FIXED_BYTES) throw new CorruptEntryError(`entry too short (${bytes.length} bytes)`);
  const flags = bytes[FLAGS_OFFSET]!;
  const createdAt = readFloat64(bytes, CREATED_AT_OFFSET);
  const freshFor = readFloat64(bytes, FRESH_FOR_OFFSET);
  const staleFor = readFloat64(bytes, STALE_FOR_OFFSET);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0)) {
    throw new CorruptEntryError('invalid timestamps');
  }
  const compressionId = flags >> 4;
  let size = -1;
  let stamp = 0;
  let at = FIXED_BYTES_V1;
  if (version === VERSION) {
    size = readUint32(bytes, SIZE_OFFSET);
    stamp = readUint32(bytes, STAMP_OFFSET);
    at = FIXED_BYTES;
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
