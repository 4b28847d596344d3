import { encodeEnvelope } from '../../src/codec/envelope.ts';
import { cborSerializer } from '../../src/codec/serializers.ts';
import { decodeValue, encodeValue } from '../../adapters/upstash/index.ts';
import { smallValue } from '../support/payloads.ts';
import { round } from '../support/stats.ts';

/** What the text encoding of values costs, for one entry as cachette stores it. */
export interface EncodingCost {
  /** Raw bytes of the entry (CBOR envelope of the ~150-byte JSON object). */
  rawBytes: number;
  /** encodeValue + decodeValue, µs per value. */
  encodeDecodeUs: number;
  /** The value's bytes inside a request body (SET) and a reply without Upstash-Encoding. */
  wireBytes: number;
  /** The value's bytes in a reply with `Upstash-Encoding: base64` (the SDK's default). */
  wireBytesBase64Reply: number;
  /** The same for a 1 MiB value: µs per encode+decode. */
  encodeDecodeUs1MiB: number;
}

/** Measures the encoding on the entry the phases store, and on 1 MiB of random bytes. */
export function measureEncoding(): EncodingCost {
  const payload = cborSerializer.encode(smallValue(42));
  const entry = encodeEnvelope({ serializerId: 1, compressionId: 0, createdAt: Date.now(), freshFor: Infinity, staleFor: 0, tags: [], payload });
  const text = encodeValue(entry);
  const big = new Uint8Array(1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
  return {
    rawBytes: entry.length,
    encodeDecodeUs: usPer(200_000, () => decodeValue(encodeValue(entry))),
    // JSON.stringify: the quotes and any escapes are what really travels.
    wireBytes: JSON.stringify(text).length,
    wireBytesBase64Reply: JSON.stringify(btoa(text)).length,
    encodeDecodeUs1MiB: usPer(20, () => decodeValue(encodeValue(big))),
  };
}

function usPer(reps: number, fn: () => unknown): number {
  for (let i = 0; i < Math.max(2, reps / 10); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return round(((performance.now() - t0) * 1000) / reps, 3);
}
