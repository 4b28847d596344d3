import * as fflate from 'fflate';
import * as zlib from 'node:zlib';
import { rowsPayload } from '../support/payloads.ts';
import { round } from '../support/stats.ts';

/** One compressor measured alone on the rows payload. */
export interface CompressorRow {
  name: string;
  /** Compressed size / original size; undefined when the compressor is not available. */
  ratio?: number;
  compressMBs?: number;
  /** Throughput in MB of original (decompressed) bytes per second. */
  decompressMBs?: number;
  /** Why there are no numbers. */
  unavailable?: string;
}

type Codec = [name: string, compress: (b: Uint8Array) => Uint8Array, decompress: (b: Uint8Array) => Uint8Array];

const BROTLI_Q = (q: number) => ({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: q } });

// zstd arrived in node:zlib in Node 22.15 / 23.8; looked up at run time so this file loads on Node 20.
const zstd = zlib as unknown as { zstdCompressSync?: (b: Uint8Array) => Buffer; zstdDecompressSync?: (b: Uint8Array) => Buffer };

const codecs: Codec[] = [
  ['fflate deflate level 1', (b) => fflate.deflateSync(b, { level: 1 }), (b) => fflate.inflateSync(b)],
  ['fflate deflate level 6', (b) => fflate.deflateSync(b, { level: 6 }), (b) => fflate.inflateSync(b)],
  ['fflate deflate level 9', (b) => fflate.deflateSync(b, { level: 9 }), (b) => fflate.inflateSync(b)],
  ['fflate gzip (level 6)', (b) => fflate.gzipSync(b), (b) => fflate.gunzipSync(b)],
  ['node:zlib deflateRaw (level 6)', (b) => zlib.deflateRawSync(b), (b) => zlib.inflateRawSync(b)],
  ['node:zlib gzip (level 6)', (b) => zlib.gzipSync(b), (b) => zlib.gunzipSync(b)],
  ['node:zlib brotli quality 4', (b) => zlib.brotliCompressSync(b, BROTLI_Q(4)), (b) => zlib.brotliDecompressSync(b)],
  ['node:zlib brotli quality 11 (default)', (b) => zlib.brotliCompressSync(b), (b) => zlib.brotliDecompressSync(b)],
];

/** Repeats `fn` for at least `ms` (after a warm-up) and returns runs per second. */
function rate(fn: () => unknown, ms: number): number {
  for (let i = 0; i < 50; i++) fn();
  let runs = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 20; i++) fn();
    runs += 20;
    elapsed = performance.now() - t0;
  }
  return (runs / elapsed) * 1000;
}

/**
 * Compress and decompress alone (no cache, no I/O) on the ~14 KiB rows payload as JSON text,
 * each codec timed for `msEach` per direction. Round trips are checked byte for byte.
 */
export function compressorMicro(msEach: number): { inputBytes: number; rows: CompressorRow[] } {
  const input = new TextEncoder().encode(JSON.stringify(rowsPayload()));
  const mb = input.length / 1e6;
  const rows: CompressorRow[] = codecs.map(([name, compress, decompress]) => {
    const packed = compress(input);
    const back = decompress(packed);
    if (Buffer.compare(Buffer.from(back), Buffer.from(input)) !== 0) throw new Error(`${name} did not round-trip`);
    return {
      name,
      ratio: round(packed.length / input.length, 3),
      compressMBs: round(rate(() => compress(input), msEach) * mb, 1),
      decompressMBs: round(rate(() => decompress(packed), msEach) * mb, 1),
    };
  });
  if (zstd.zstdCompressSync && zstd.zstdDecompressSync) {
    const c = zstd.zstdCompressSync;
    const d = zstd.zstdDecompressSync;
    const packed = c(input);
    rows.push({
      name: 'node:zlib zstd (default level)',
      ratio: round(packed.length / input.length, 3),
      compressMBs: round(rate(() => c(input), msEach) * mb, 1),
      decompressMBs: round(rate(() => d(packed), msEach) * mb, 1),
    });
  } else {
    rows.push({ name: 'node:zlib zstd', unavailable: `not in node:zlib on Node ${process.versions.node} (added in Node 22.15 / 23.8)` });
  }
  return { inputBytes: input.length, rows };
}
