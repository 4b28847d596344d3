import { deflateSync, inflateSync } from 'fflate';

/** How and when payloads are compressed. */
export interface CompressionOptions {
  /** Payloads smaller than this many bytes are never compressed. Default 1024. */
  threshold?: number;
  /** fflate deflate level, 1 (fast) to 9 (small). Default 3. */
  level?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  /** Keep the compressed form only when it saves at least this fraction. Default 0.1. */
  minSavings?: number;
}

/** Compression ids recorded in the envelope flags. */
export const CompressionId = { None: 0, Deflate: 1 } as const;
/** One of the {@link CompressionId} values. */
export type CompressionId = (typeof CompressionId)[keyof typeof CompressionId];

/** Resolved compression settings; `undefined` means compression is off. */
export interface Compressor {
  readonly threshold: number;
  readonly level: NonNullable<CompressionOptions['level']>;
  readonly minSavings: number;
}

/** Validates the `compression` option. */
export function resolveCompression(option: CompressionOptions | boolean | undefined): Compressor | undefined {
  if (option === false) return undefined;
  const o = option === true || option === undefined ? {} : option;
  const threshold = o.threshold ?? 1024;
  const level = o.level ?? 3;
  const minSavings = o.minSavings ?? 0.1;
  if (!Number.isFinite(threshold) || threshold < 0) throw new RangeError(`compression.threshold must be a non-negative number, got ${threshold}`);
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new RangeError(`compression.level must be an integer from 1 to 9, got ${level}`);
  if (!(minSavings >= 0 && minSavings < 1)) throw new RangeError(`compression.minSavings must be in [0, 1), got ${minSavings}`);
  return { threshold, level, minSavings };
}

/** Compresses when it pays; returns the bytes to store and the id that says how. */
export function maybeCompress(payload: Uint8Array, c: Compressor | undefined): [Uint8Array, CompressionId] {
  if (!c || payload.length < c.threshold) return [payload, CompressionId.None];
  const packed = deflateSync(payload, { level: c.level });
  if (packed.length <= payload.length * (1 - c.minSavings)) return [packed, CompressionId.Deflate];
  return [payload, CompressionId.None];
}

/** Undoes {@link maybeCompress}; throws on an unknown id or corrupt data. */
export function decompress(payload: Uint8Array, id: number): Uint8Array {
  if (id === CompressionId.None) return payload;
  if (id === CompressionId.Deflate) return inflateSync(payload);
  throw new Error(`unknown compression id ${id}`);
}
