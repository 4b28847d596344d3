/**
 * The byte layout of the entry envelope (docs/architecture.md#stored-formats), defined once:
 * the codec (src/codec/envelope.ts) writes and reads it from these offsets, the L1 tier
 * compares {@link VERSION_PREFIX_BYTES}, the stores stale an entry with {@link staledEnvelope}
 * and the Redis script that does the same on the server (EXPIRE_ENTRIES_LUA,
 * adapters/shared/redis-protocol.ts) is built from these constants;
 * test/store/layout-agreement.test.ts runs both on one redis-server and compares the bytes.
 * Version 2, numbers big-endian:
 *
 *   0      magic 0xCA — never the first byte of a decimal integer, so counters and entries
 *          can share a keyspace without being mistaken for each other
 *   1      format version (2)
 *   2      flags: low nibble serializer id, high nibble compression id (0xFF: a sealed
 *          envelope, its payload encrypted, laid out in src/cache/encryption/sealed-envelope.ts)
 *   3–10   created at, float64 ms since the epoch
 *   11–18  fresh for, float64 ms after creation (Infinity: no expiry)
 *   19–26  stale for, float64 ms after fresh-until (the grace window)
 *   27–30  size, uint32: the payload's length before compression, so that a reader refuses an
 *          entry too large for it before inflating a single byte of it
 *   31–34  stamp, uint32, random per write: with the creation time it tells two writes apart
 *          even within one millisecond, so these first 35 bytes identify one stored version
 *   35–36  tag count, uint16; then per tag: uint16 byte length, UTF-8 name, float64 generation
 *   …      payload
 *
 * Version 1 (written by cachette 0.1) lacked the size and the stamp: its tag count sits at
 * bytes 27–28, right after the three times.
 */
import { readFloat64, writeFloat64 } from '../../util/big-endian.ts';

/** First byte of every envelope. */
export const MAGIC = 0xca;
/** The format version this writer produces. */
export const VERSION = 2;
/** The version cachette 0.1 wrote, still read. */
export const VERSION_1 = 1;
/** Where the format version sits. */
export const VERSION_OFFSET = 1;
/** Where the flags byte (serializer id, compression id) sits. */
export const FLAGS_OFFSET = 2;
/** Where created-at (float64) starts. */
export const CREATED_AT_OFFSET = 3;
/** Where fresh-for (float64) starts: right after created-at, so one write moves both. */
export const FRESH_FOR_OFFSET = CREATED_AT_OFFSET + 8;
/** Where stale-for (float64) starts. */
export const STALE_FOR_OFFSET = FRESH_FOR_OFFSET + 8;
/** Where version 2's payload size (uint32) starts; also where version 1's tag count starts. */
export const SIZE_OFFSET = STALE_FOR_OFFSET + 8;
/** Where version 2's stamp (uint32) starts. */
export const STAMP_OFFSET = SIZE_OFFSET + 4;
/** Bytes before the tag count: a stored version is identified by this prefix. */
export const HEADER_BYTES = STAMP_OFFSET + 4;
/** The fixed part of a version 2 envelope: the header and the uint16 tag count. */
export const FIXED_BYTES = HEADER_BYTES + 2;
/** The fixed part of a version 1 envelope: the three times and the tag count; the shortest envelope there is. */
export const FIXED_BYTES_V1 = SIZE_OFFSET + 2;

/**
 * The stored bytes an L1 copy keeps to tell its version from any other: the header, and one
 * byte more (the tag count's first) to make it 36, a multiple of 3, so that stores keeping
 * values as base64 text can compare it too.
 */
export const VERSION_PREFIX_BYTES = HEADER_BYTES + 1;

/** True when `bytes` starts like an envelope this version reads: long enough, the magic, a known version. */
export function isEnvelope(bytes: Uint8Array): boolean {
  const version = bytes[VERSION_OFFSET];
  return bytes.length >= FIXED_BYTES_V1 && bytes[0] === MAGIC && (version === VERSION || version === VERSION_1);
}

/** An envelope rewritten by {@link staledEnvelope}, and the TTL it keeps on the store. */
export interface StaledEnvelope {
  readonly bytes: Uint8Array;
  /** Its grace in ms (at least 1), or undefined for an endless grace. */
  readonly ttlMs: number | undefined;
}

/**
 * `cache.expire` on stored bytes, the one definition of staling: when `bytes` is an envelope
 * fresh at `now`, a copy whose created-at and fresh-for make it turn stale at `now`
 * (created-at moves back to `now` only when it lies ahead of it), its grace and everything
 * else unchanged; else undefined (not an envelope, unreadable times, stale already).
 */
export function staledEnvelope(bytes: Uint8Array, now: number): StaledEnvelope | undefined {
  if (!isEnvelope(bytes)) return undefined;
  const createdAt = readFloat64(bytes, CREATED_AT_OFFSET);
  const freshFor = readFloat64(bytes, FRESH_FOR_OFFSET);
  const staleFor = readFloat64(bytes, STALE_FOR_OFFSET);
  if (!Number.isFinite(createdAt) || !(freshFor >= 0) || !(staleFor >= 0) || !(now < createdAt + freshFor)) return undefined;
  // A copy whatever `bytes` is: Buffer#slice would be a view, and the rewrite would change the store's bytes.
  const staled = new Uint8Array(bytes);
  const since = Math.min(createdAt, now);
  writeFloat64(staled, CREATED_AT_OFFSET, since);
  writeFloat64(staled, FRESH_FOR_OFFSET, now - since);
  return { bytes: staled, ttlMs: Number.isFinite(staleFor) ? Math.max(1, Math.ceil(staleFor)) : undefined };
}
