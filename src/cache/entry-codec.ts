import { CompressionId, decompress, maybeCompress, type CompressionPolicy } from '../codec/compression.ts';
import { decodeEnvelope, encodeEnvelope, encodeTextEnvelope, payloadSize, TextEnvelope, type TagGeneration } from '../codec/envelope.ts';
import { autoSerializer, decodeDetached, jsonSerializer, payloadText, serializerById, serializerFor, type Serializer } from '../codec/serializers.ts';
import { findUnstorable } from '../codec/unstorable.ts';
import { utf8Bytes } from '../util/bytes.ts';
import { ValueTooLargeError } from './errors.ts';

/**
 * Bytes beyond its entry's own that a value read back may keep alive by viewing the buffer it
 * was decoded from: one slab (src/util/bytes.ts and Node's Buffer pool both pool small buffers
 * by 8 KiB, and accept that a view kept keeps its slab), never a socket chunk holding other
 * replies. Past it, the value is decoded into copies (decodeDetached).
 */
export const VIEW_SLACK_BYTES = 8 * 1024;

/** A decoded entry with its value and when it turns stale and expires. */
export interface DecodedEntry {
  value: unknown;
  /** When it was written (ms, the writer's clock). */
  createdAt: number;
  freshUntil: number;
  staleUntil: number;
  /** The length of its grace window (staleUntil − freshUntil, kept apart since both may be Infinity). */
  graceMs: number;
  /** The `version` the fill that stored it named (undefined: none). */
  version?: string | number;
  /** How long the factory that computed it took, ms on its cache's clock (undefined: not recorded; see `xfetch`). */
  computeMs?: number;
  tags: readonly TagGeneration[];
}

/** Turns values into envelopes and back with the cache's serializer, compression and size limit. */
export class EntryCodec {
  constructor(
    private readonly serializer: Serializer,
    private readonly compression: CompressionPolicy | undefined,
    private readonly maxValueBytes: number,
  ) {}

  /**
   * Encodes `value` for `key`. A value the serializer cannot represent is a TypeError that
   * names the key, thrown at the call site instead of storing something that reads back wrong
   * (a Promise inside it, a cycle: see unstorable.ts); a value above `maxValueBytes` is a
   * {@link ValueTooLargeError}.
   */
  encode(key: string, value: unknown, now: number, freshFor: number, staleFor: number, tags: readonly TagGeneration[]): Uint8Array {
    return this.#encode(key, value, now, freshFor, staleFor, tags, false) as Uint8Array;
  }

  /**
   * {@link encode}, except that an envelope whose text payload is stored as it is, whatever
   * its UTF-8 size, comes back as a {@link TextEnvelope}, its bytes not made yet: a store that writes into a buffer
   * of its own writes them there, once (src/store/text-entry.ts).
   */
  encodeParts(key: string, value: unknown, now: number, freshFor: number, staleFor: number, tags: readonly TagGeneration[]): Uint8Array | TextEnvelope {
    return this.#encode(key, value, now, freshFor, staleFor, tags, true);
  }

  #encode(key: string, value: unknown, now: number, freshFor: number, staleFor: number, tags: readonly TagGeneration[], parts: boolean): Uint8Array | TextEnvelope {
    const serializer = serializerFor(this.serializer, value);
    const serialized = serialize(key, this.serializer, serializer, value);
    let payload: Uint8Array;
    if (typeof serialized === 'string') {
      // Text goes straight into the envelope, with no payload buffer of its own, unless it has
      // to be compressed or refused: UTF-8 takes at least one byte per UTF-16 code unit, so only
      // text shorter than the threshold and the limit can stay, and its size decides. Text that
      // stays whatever it holds (3 bytes per unit at most) may be kept as its parts.
      if (this.#mayStay(serialized.length)) {
        const header = { serializerId: serializer.id, compressionId: CompressionId.None, createdAt: now, freshFor, staleFor, tags };
        if (parts && this.#mayStay(3 * serialized.length)) return new TextEnvelope(header, serialized);
        const envelope = encodeTextEnvelope(header, serialized);
        const size = payloadSize(envelope);
        if (this.#mayStay(size)) return envelope;
        payload = envelope.subarray(envelope.length - size);
      } else payload = utf8Bytes(serialized);
    } else payload = serialized;
    if (payload.length > this.maxValueBytes) throw new ValueTooLargeError(key, payload.length, this.maxValueBytes);
    const [stored, compressionId] = maybeCompress(payload, this.compression);
    return encodeEnvelope({ serializerId: serializer.id, compressionId, createdAt: now, freshFor, staleFor, size: payload.length, tags, payload: stored });
  }

  /** True when a payload of `size` bytes is stored as it is: within the limit, below the compression threshold. */
  #mayStay(size: number): boolean {
    return size <= this.maxValueBytes && (this.compression === undefined || size < this.compression.threshold);
  }

  /**
   * Decodes an entry; throws for anything unreadable, and for an entry whose declared size is
   * above `maxValueBytes` before inflating any of it (the engine counts it as corrupt). The
   * value keeps alive at most `slack` bytes beyond its entry's own (see {@link VIEW_SLACK_BYTES};
   * 0 for a value an L1 keeps, so that what it counts is what it holds).
   */
  decode(bytes: Uint8Array, slack = VIEW_SLACK_BYTES): DecodedEntry {
    const envelope = decodeEnvelope(bytes);
    if (envelope.size > this.maxValueBytes) throw new RangeError(`the entry declares ${envelope.size} bytes, above maxValueBytes (${this.maxValueBytes})`);
    const serializer = serializerById(envelope.serializerId, this.serializer);
    if (!serializer) throw new Error(`unknown serializer id ${envelope.serializerId}`);
    const payload = decompress(envelope.payload, envelope.compressionId, envelope.size, this.compression);
    // A value may view the buffer it was decoded from (the stored bytes, or the inflated ones)
    // only when that buffer holds little besides them: a view into a store's reply chunk would
    // keep the whole chunk alive as long as the value lives (an L1 copy, a caller's map).
    const source = envelope.compressionId === CompressionId.None ? bytes : payload;
    const value = source.buffer.byteLength - source.byteLength > slack ? decodeDetached(serializer, payload) : serializer.decode(payload);
    const freshUntil = envelope.createdAt + envelope.freshFor;
    return { value, createdAt: envelope.createdAt, freshUntil, staleUntil: freshUntil + envelope.staleFor, graceMs: envelope.staleFor, tags: envelope.tags };
  }
}

/**
 * The payload of `value` with `serializer` (what `chosen` picked for it): its text for text
 * serializers (see payloadText), else its bytes. A value that cannot be stored as it is — one
 * the serializer refuses, one holding a Promise (which every serializer would write as `{}`),
 * a circular one (which no built-in serializer can write) — is a TypeError that names the key,
 * the serializer and, for the last two, where in the value.
 */
function serialize(key: string, chosen: Serializer, serializer: Serializer, value: unknown): string | Uint8Array {
  // A value the auto serializer found to be plain JSON holds neither (its walk proved it).
  const unstorable = chosen === autoSerializer && serializer === jsonSerializer ? undefined : findUnstorable(value);
  if (unstorable?.thenable !== undefined) throw encodeError(key, chosen, serializer, `${unstorable.thenable} is a Promise (or another thenable): was an await forgotten?`);
  const circular = unstorable?.cycle && `it is circular: ${unstorable.cycle.at} refers back to ${unstorable.cycle.target}`;
  // The built-in serializers (ids 1–4) cannot write a cycle; a custom one may, and is let try.
  if (circular && serializer.id <= 4) throw encodeError(key, chosen, serializer, circular);
  try {
    return payloadText(serializer, value) ?? serializer.encode(value);
  } catch (cause) {
    throw encodeError(key, chosen, serializer, circular ?? (cause instanceof Error ? cause.message : String(cause)), cause);
  }
}

/** The TypeError for a value that cannot be encoded: the key, the serializer chosen (and the one it picked), why. */
function encodeError(key: string, chosen: Serializer, serializer: Serializer, reason: string, cause?: unknown): TypeError {
  const named = chosen === serializer || chosen.name === serializer.name ? chosen.name : `${chosen.name} (${serializer.name} for this value)`;
  return new TypeError(`cachette: cannot encode the value for key "${key}" with ${named}: ${reason}`, { cause });
}
