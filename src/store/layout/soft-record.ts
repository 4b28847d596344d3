/**
 * The soft record of a tag (TagKeys.soft, in src/store/types.ts), defined once: the text
 * `from:to:at`, saying that every move of the tag's generation from `from` up to `to` was soft,
 * the last one at `at`. It is only ever written by a soft move, right after its increment, and
 * every record written is true of the counter's history; a reader trusts it only while `to` is
 * the current generation, so a hard move (a plain increment, by any version of cachette, on any
 * store) silently retires it. The Redis scripts (adapters/shared/redis-protocol.ts) read it
 * with {@link SOFT_RECORD_LUA_PATTERN} and write it the same way;
 * test/store/layout-agreement.test.ts compares what both write on one redis-server.
 */
import type { SoftMoves } from '../types.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The record's grammar: `from`, `to` (decimal, unsigned) and `at` (decimal, maybe negative). */
const SOFT_RECORD = /^(\d+):(\d+):(-?\d+)$/;

/** {@link SOFT_RECORD} as a Lua pattern, quoted, for the scripts' `string.match`. */
export const SOFT_RECORD_LUA_PATTERN = `'^(%d+):(%d+):(%-?%d+)$'`;

/**
 * A soft record (TagKeys.soft, `from:to:at`) as the state of a tag at `generation`: the run's
 * start and time while `to` is that generation, else nothing (a hard move came after it).
 */
export function softMovesIn(record: Uint8Array | undefined, generation: number): SoftMoves | undefined {
  const parsed = parseSoftRecord(record);
  return parsed !== undefined && parsed.to === generation && parsed.from < generation ? { from: parsed.from, at: parsed.at } : undefined;
}

/** The soft record after a soft move from `before` (to `before + 1`) at `now`, given the record found (`from:to:at`). */
export function softRecord(found: Uint8Array | undefined, before: number, now: number): Uint8Array {
  const parsed = parseSoftRecord(found);
  const from = parsed !== undefined && parsed.to === before ? parsed.from : before;
  return encoder.encode(`${from}:${before + 1}:${Math.floor(now)}`);
}

function parseSoftRecord(record: Uint8Array | undefined): { from: number; to: number; at: number } | undefined {
  if (record === undefined) return undefined;
  const match = SOFT_RECORD.exec(decoder.decode(record));
  if (match === null) return undefined;
  const [from, to, at] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return Number.isSafeInteger(from) && Number.isSafeInteger(to) && Number.isSafeInteger(at) ? { from, to, at } : undefined;
}
