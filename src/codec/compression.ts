import { deflateSync, inflateSync } from 'fflate';

/**
 * A compression format and an implementation of it. The id is written into every envelope, so
 * it names the *format*, not the library: any implementation of raw DEFLATE (RFC 1951) may use
 * id 1, and entries it writes stay readable by every other one — fflate on the edge, node:zlib
 * on a server. Id 2 is reserved for Brotli; 3–15 are free for your own formats.
 */
export interface Compressor {
  /** Format id, 1–15, recorded in the envelope flags. */
  readonly id: number;
  /** Human-readable name, used in errors. */
  readonly name: string;
  /** Compresses a payload. */
  compress(bytes: Uint8Array): Uint8Array;
  /** Undoes {@link Compressor.compress}; throws on corrupt input. */
  decompress(bytes: Uint8Array): Uint8Array;
}

/** Compression ids recorded in the envelope flags. */
export const CompressionId = { None: 0, Deflate: 1, Brotli: 2 } as const;

/** Deflate levels, 1 (fast) to 9 (small). */
export type DeflateLevel = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/** The built-in compressor: raw DEFLATE through fflate, in plain JavaScript, on every runtime. */
export function fflateDeflate(level: DeflateLevel = 3): Compressor {
  return {
    id: CompressionId.Deflate,
    name: `deflate (fflate, level ${level})`,
    compress: (bytes) => deflateSync(bytes, { level }),
    decompress: (bytes) => inflateSync(bytes),
  };
}

/** How and when payloads are compressed. */
export interface CompressionOptions {
  /** Payloads smaller than this many bytes are never compressed. Default 1024. */
  threshold?: number;
  /** Level of the built-in fflate deflate, when no `compressor` is given. Default 3. */
  level?: DeflateLevel;
  /**
   * The compressor to write with, e.g. node:zlib's through `zlibCompressor` from
   * `cachette/node` (several times faster than fflate). Entries written with the built-in
   * deflate stay readable whichever compressor is configured.
   */
  compressor?: Compressor;
  /** Keep the compressed form only when it saves at least this fraction. Default 0.1. */
  minSavings?: number;
}

/** Resolved compression settings; `undefined` means compression is off. */
export interface CompressionPolicy {
  readonly threshold: number;
  readonly minSavings: number;
  readonly compressor: Compressor;
}

/** Validates the `compression` option. */
export function resolveCompression(option: CompressionOptions | boolean | undefined): CompressionPolicy | undefined {
  if (option === false) return undefined;
  const o = option === true || option === undefined ? {} : option;
  const threshold = o.threshold ?? 1024;
  const minSavings = o.minSavings ?? 0.1;
  if (!Number.isFinite(threshold) || threshold < 0) throw new RangeError(`compression.threshold must be a non-negative number, got ${threshold}`);
  if (!(minSavings >= 0 && minSavings < 1)) throw new RangeError(`compression.minSavings must be in [0, 1), got ${minSavings}`);
  if (o.compressor !== undefined) {
    const c = o.compressor;
    if (typeof c?.compress !== 'function' || typeof c.decompress !== 'function') throw new TypeError('compression.compressor must have compress() and decompress()');
    if (!Number.isInteger(c.id) || c.id < 1 || c.id > 15) throw new RangeError(`compression.compressor.id must be an integer from 1 to 15 (0 means uncompressed), got ${String(c.id)}`);
    if (o.level !== undefined) throw new TypeError('compression.level applies to the built-in deflate only; configure the level on your compressor');
    return { threshold, minSavings, compressor: c };
  }
  const level = o.level ?? 3;
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new RangeError(`compression.level must be an integer from 1 to 9, got ${level}`);
  return { threshold, minSavings, compressor: fflateDeflate(level) };
}

/** Compresses when it pays; returns the bytes to store and the id that says how. */
export function maybeCompress(payload: Uint8Array, policy: CompressionPolicy | undefined): [Uint8Array, number] {
  if (!policy || payload.length < policy.threshold) return [payload, CompressionId.None];
  const packed = policy.compressor.compress(payload);
  if (packed.length <= payload.length * (1 - policy.minSavings)) return [packed, policy.compressor.id];
  return [payload, CompressionId.None];
}

const builtInDeflate = fflateDeflate();

/**
 * Undoes {@link maybeCompress} with the configured compressor, or the built-in deflate for
 * id 1; throws on an id nobody here can read (the engine counts the entry as corrupt).
 */
export function decompress(payload: Uint8Array, id: number, policy?: CompressionPolicy): Uint8Array {
  if (id === CompressionId.None) return payload;
  if (policy && id === policy.compressor.id) return policy.compressor.decompress(payload);
  if (id === CompressionId.Deflate) return builtInDeflate.decompress(payload);
  throw new Error(`unknown compression id ${id}`);
}
