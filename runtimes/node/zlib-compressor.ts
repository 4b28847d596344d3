import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { CompressionId, type Compressor, type DeflateLevel, zlibDeflate } from '../../src/codec/compression.ts';

/** Options of {@link zlibCompressor}. */
export interface ZlibCompressorOptions {
  /** "deflate" (default): raw DEFLATE, readable by the built-in fflate on any runtime. "brotli": smaller, readable only where a brotli compressor is configured. */
  format?: 'deflate' | 'brotli';
  /** Deflate level 1–9 (default 1, the fastest) or Brotli quality 0–11 (default 4). */
  level?: number;
}

/**
 * A compressor on node:zlib, native code several times faster than fflate (see
 * bench/README.md), and the default compressor on Node, Bun and Deno. `deflate` writes the same
 * raw DEFLATE format under the same id as fflate, so an edge reader without node:zlib still
 * reads every entry it writes.
 */
export function zlibCompressor(options: ZlibCompressorOptions = {}): Compressor {
  const format = options.format ?? 'deflate';
  if (format === 'deflate') {
    const level = checkedLevel(options.level ?? 1, 1, 9, 'deflate level') as DeflateLevel;
    return zlibDeflate({ deflateRawSync, inflateRawSync }, level);
  }
  if (format === 'brotli') {
    const quality = checkedLevel(options.level ?? 4, 0, 11, 'brotli quality');
    return {
      id: CompressionId.Brotli,
      name: `brotli (node:zlib, quality ${quality})`,
      compress: (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
      decompress: (bytes, size) => brotliDecompressSync(bytes, { maxOutputLength: Math.max(1, size) }),
    };
  }
  throw new TypeError(`zlibCompressor: format must be "deflate" or "brotli", got ${JSON.stringify(format)}`);
}

function checkedLevel(value: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`zlibCompressor: ${what} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}
