import { decompress, maybeCompress, type CompressionPolicy } from '../codec/compression.ts';
import { decodeEnvelope, encodeEnvelope, type TagGeneration } from '../codec/envelope.ts';
import { serializerById, serializerFor, type Serializer } from '../codec/serializers.ts';

/** A decoded entry with its value and when it turns stale and expires. */
export interface DecodedEntry {
  value: unknown;
  freshUntil: number;
  staleUntil: number;
  tags: readonly TagGeneration[];
}

/** Turns values into envelopes and back with the cache's serializer and compression. */
export class EntryCodec {
  constructor(
    private readonly serializer: Serializer,
    private readonly compression: CompressionPolicy | undefined,
  ) {}

  /**
   * Encodes `value` for `key`. A value the serializer cannot represent is a TypeError that
   * names the key, thrown at the call site instead of storing something that reads back wrong.
   */
  encode(key: string, value: unknown, now: number, freshFor: number, staleFor: number, tags: readonly TagGeneration[]): Uint8Array {
    const serializer = serializerFor(this.serializer, value);
    let payload: Uint8Array;
    try {
      payload = serializer.encode(value);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new TypeError(`cachette: cannot encode the value for key "${key}" with ${serializer.name}: ${reason}`, { cause });
    }
    const [stored, compressionId] = maybeCompress(payload, this.compression);
    return encodeEnvelope({ serializerId: serializer.id, compressionId, createdAt: now, freshFor, staleFor, tags, payload: stored });
  }

  /** Decodes an entry; throws for anything unreadable (the engine counts it as corrupt). */
  decode(bytes: Uint8Array): DecodedEntry {
    const e = decodeEnvelope(bytes);
    const serializer = serializerById(e.serializerId, this.serializer);
    if (!serializer) throw new Error(`unknown serializer id ${e.serializerId}`);
    const value = serializer.decode(decompress(e.payload, e.compressionId, this.compression));
    const freshUntil = e.createdAt + e.freshFor;
    return { value, freshUntil, staleUntil: freshUntil + e.staleFor, tags: e.tags };
  }
}
