import { Inflate, deflateSync } from 'fflate';

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
  /**
   * Undoes {@link Compressor.compress}. `size` is the length the envelope says the payload
   * inflates to: an implementation should stop and throw as soon as it would produce more, so
   * that a hostile entry cannot make it inflate gigabytes. (The engine also checks the length
   * of what comes back.) Throws on corrupt input.
   */
  decompress(bytes: Uint8Array, size: number): Uint8Array;
}

/** Compression ids recorded in the envelope flags. */
export const CompressionId = { None: 0, Deflate: 1, Brotli: 2 } as const;

/** Deflate levels, 1 (fast) to 9 (small). */
export type DeflateLevel = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/** Makes a raw DEFLATE compressor at a level; the runtime's fastest one is the default. */
export type DeflateFactory = (level: DeflateLevel) => Compressor;

// Input is fed to the portable inflater in slices: DEFLATE expands at most ~1032:1, so each
// slice can produce at most ~16 MiB before the running total is checked against the size.
const INFLATE_SLICE = 16 * 1024;

/** The portable compressor: raw DEFLATE through fflate, in plain JavaScript, on every runtime. */
export function fflateDeflate(level: DeflateLevel = 1): Compressor {
  return {
    id: CompressionId.Deflate,
    name: `deflate (fflate, level ${level})`,
    compress: (bytes) => deflateSync(bytes, { level }),
    decompress: boundedInflate,
  };
}

/** Inflates raw DEFLATE, throwing as soon as the output would exceed `size` bytes. */
function boundedInflate(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let written = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    if (written + chunk.length > size) throw new RangeError(`the payload inflates past the ${size} bytes its entry declares`);
    out.set(chunk, written);
    written += chunk.length;
    if (final) ended = true;
  });
  for (let at = 0; at < bytes.length; at += INFLATE_SLICE) {
    const end = Math.min(at + INFLATE_SLICE, bytes.length);
    inflater.push(bytes.subarray(at, end), end === bytes.length);
  }
  if (!ended || written !== size) throw new RangeError(`the payload inflates to ${written} bytes, its entry declares ${size}`);
  return out;
}

/**
 * The two functions of node:zlib a raw DEFLATE compressor needs. Node, Bun, Deno and workerd
 * (with `nodejs_compat`) all have both, with `maxOutputLength`; the edge entry reaches them
 * through `process.getBuiltinModule` (see {@link runtimeZlib}), never through an import.
 */
export interface ZlibDeflateFunctions {
  deflateRawSync(bytes: Uint8Array, options: { level: number }): Uint8Array;
  inflateRawSync(bytes: Uint8Array, options: { maxOutputLength: number }): Uint8Array;
}

// workerd's inflateRawSync reserves one more output chunk (40 KiB in its zlib-util.c++)
// whenever its buffer is full, also after the last byte, and throws when that reservation passes
// maxOutputLength: a limit of exactly the size fails for many sizes (seen: 50,000 to 131,071
// bytes), so the limit leaves room for one chunk.
const INFLATE_SLACK = 64 * 1024;

/** Raw DEFLATE through a runtime's native zlib: the same format and id as {@link fflateDeflate}. */
export function zlibDeflate(zlib: ZlibDeflateFunctions, level: DeflateLevel = 1): Compressor {
  return {
    id: CompressionId.Deflate,
    name: `deflate (node:zlib, level ${level})`,
    compress: (bytes) => zlib.deflateRawSync(bytes, { level }),
    // maxOutputLength makes zlib stop (and throw) soon after the output passes the size the
    // entry declares, instead of inflating a hostile entry to the end; decompress() below
    // refuses any length but the declared one.
    decompress: (bytes, size) => zlib.inflateRawSync(bytes, { maxOutputLength: size + INFLATE_SLACK }),
  };
}

/** The runtime's own `process`, as far as {@link runtimeZlib} looks at it. */
export interface RuntimeProcess {
  getBuiltinModule?(id: string): unknown;
}

/**
 * node:zlib when the runtime hands it out at run time (`process.getBuiltinModule`: Node from
 * 20.16, Bun, Deno, workerd with `nodejs_compat`), so that this module imports no `node:`
 * module and an edge bundle stays free of it. Accepted only if it writes DEFLATE that fflate
 * reads back, so that a shim of node:zlib that is not the real thing cannot change the format.
 * `scope` is the global scope unless a test passes another.
 */
export function runtimeZlib(scope: { process?: RuntimeProcess } = globalThis): ZlibDeflateFunctions | undefined {
  const runtime = scope.process;
  if (typeof runtime?.getBuiltinModule !== 'function') return undefined;
  try {
    const zlib = runtime.getBuiltinModule('node:zlib') as Partial<ZlibDeflateFunctions> | undefined;
    if (typeof zlib?.deflateRawSync !== 'function' || typeof zlib.inflateRawSync !== 'function') return undefined;
    const native = zlibDeflate(zlib as ZlibDeflateFunctions);
    const sample = new TextEncoder().encode('cachette checks that this zlib speaks raw DEFLATE, cachette checks');
    const writes = sameBytes(boundedInflate(native.compress(sample), sample.length), sample);
    const reads = sameBytes(native.decompress(deflateSync(sample, { level: 1 }), sample.length), sample);
    return writes && reads ? (zlib as ZlibDeflateFunctions) : undefined;
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, at) => byte === b[at]);
}

/** The fastest raw DEFLATE this runtime offers: native zlib where it can be reached, fflate otherwise. */
function fastestDeflate(): DeflateFactory {
  const zlib = runtimeZlib();
  return zlib ? (level) => zlibDeflate(zlib, level) : fflateDeflate;
}

let platformDeflate: DeflateFactory = fastestDeflate();
/** Reads DEFLATE entries whatever compressor the cache writes with. */
let deflateReader: Compressor = platformDeflate(1);

/**
 * Installs a raw DEFLATE implementation as the default. This module already picks node:zlib
 * wherever the runtime hands it out, fflate elsewhere; the server entry points (Node, Bun,
 * Deno) also install node:zlib when they load, for runtimes without `process.getBuiltinModule`
 * (Node before 20.16). The format and id stay the same, so every runtime reads what any
 * other wrote.
 */
export function installPlatformDeflate(factory: DeflateFactory): void {
  platformDeflate = factory;
  deflateReader = factory(1);
}

/** How and when payloads are compressed. */
export interface CompressionOptions {
  /** Payloads smaller than this many bytes are never compressed. Default 1024. */
  threshold?: number;
  /** Deflate level of the default compressor, when no `compressor` is given. Default 1 (fastest). */
  level?: DeflateLevel;
  /**
   * The compressor to write with. Default: raw DEFLATE through the fastest implementation of
   * the runtime (native node:zlib on Node, Bun, Deno and workerd with `nodejs_compat`; fflate
   * elsewhere). Entries written with
   * DEFLATE stay readable whichever compressor is configured.
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

const EXPLICIT_THRESHOLD = 1024;

/**
 * Validates the `compression` option. Left out, compression follows the store's own threshold
 * (see `Store.compressionThreshold`) and is off for stores that declare none.
 */
export function resolveCompression(option: CompressionOptions | boolean | undefined, storeThreshold?: number): CompressionPolicy | undefined {
  if (option === false) return undefined;
  if (option === undefined && storeThreshold === undefined) return undefined;
  const given = option === true || option === undefined ? {} : option;
  const threshold = given.threshold ?? (option === undefined ? storeThreshold! : EXPLICIT_THRESHOLD);
  const minSavings = given.minSavings ?? 0.1;
  if (!Number.isFinite(threshold) || threshold < 0) throw new RangeError(`compression.threshold must be a non-negative number, got ${threshold}`);
  if (!(minSavings >= 0 && minSavings < 1)) throw new RangeError(`compression.minSavings must be in [0, 1), got ${minSavings}`);
  if (given.compressor !== undefined) {
    const compressor = given.compressor;
    if (typeof compressor?.compress !== 'function' || typeof compressor.decompress !== 'function') throw new TypeError('compression.compressor must have compress() and decompress()');
    if (!Number.isInteger(compressor.id) || compressor.id < 1 || compressor.id > 15)
      throw new RangeError(`compression.compressor.id must be an integer from 1 to 15 (0 means uncompressed), got ${String(compressor.id)}`);
    if (given.level !== undefined) throw new TypeError('compression.level applies to the default deflate only; configure the level on your compressor');
    return { threshold, minSavings, compressor };
  }
  const level = given.level ?? 1;
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new RangeError(`compression.level must be an integer from 1 to 9, got ${level}`);
  return { threshold, minSavings, compressor: platformDeflate(level) };
}

/** Compresses when it pays; returns the bytes to store and the id that says how. */
export function maybeCompress(payload: Uint8Array, policy: CompressionPolicy | undefined): [Uint8Array, number] {
  if (!policy || payload.length < policy.threshold) return [payload, CompressionId.None];
  const packed = policy.compressor.compress(payload);
  if (packed.length <= payload.length * (1 - policy.minSavings)) return [packed, policy.compressor.id];
  return [payload, CompressionId.None];
}

/**
 * Undoes {@link maybeCompress} into exactly `size` bytes, with the configured compressor or
 * the runtime's deflate for id 1; throws on an id nobody here can read, on corrupt input and
 * on a size mismatch (the engine counts the entry as corrupt).
 */
export function decompress(payload: Uint8Array, id: number, size: number, policy?: CompressionPolicy): Uint8Array {
  if (id === CompressionId.None) return payload;
  let out: Uint8Array;
  if (policy && id === policy.compressor.id) out = policy.compressor.decompress(payload, size);
  else if (id === CompressionId.Deflate) out = deflateReader.decompress(payload, size);
  else throw new Error(`unknown compression id ${id}`);
  if (out.length !== size) throw new RangeError(`the payload inflates to ${out.length} bytes, its entry declares ${size}`);
  return out;
}
