import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { CompressionId, type Compressor } from '../../src/index.ts';

/** Options of {@link zlibCompressor}. */
export interface ZlibCompressorOptions {
  /** "deflate" (default): raw DEFLATE, readable by the built-in fflate on any runtime. "brotli": smaller, readable only where a brotli compressor is configured. */
  format?: 'deflate' | 'brotli';
  /** Deflate level 1–9 (default 3) or Brotli quality 0–11 (default 4). */
  level?: number;
}

/**
 * A compressor on node:zlib, native code several times faster than the built-in fflate (see
 * bench/README.md). `deflate` writes the same raw DEFLATE format under the same id as the
 * built-in, so an edge reader without node:zlib still reads every entry it writes.
 */
export function zlibCompressor(options: ZlibCompressorOptions = {}): Compressor {
  const format = options.format ?? 'deflate';
  if (format === 'deflate') {
    const level = checkedLevel(options.level ?? 3, 1, 9, 'deflate level');
    return {
      id: CompressionId.Deflate,
      name: `deflate (node:zlib, level ${level})`,
      compress: (bytes) => deflateRawSync(bytes, { level }),
      decompress: (bytes) => inflateRawSync(bytes),
    };
  }
  if (format === 'brotli') {
    const quality = checkedLevel(options.level ?? 4, 0, 11, 'brotli quality');
    return {
      id: CompressionId.Brotli,
      name: `brotli (node:zlib, quality ${quality})`,
      compress: (bytes) =>
        brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
      decompress: (bytes) => brotliDecompressSync(bytes),
    };
  }
  throw new TypeError(`zlibCompressor: format must be "deflate" or "brotli", got ${JSON.stringify(format)}`);
}

function checkedLevel(value: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`zlibCompressor: ${what} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}
