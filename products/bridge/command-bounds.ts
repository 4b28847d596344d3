/**
 * Bounds on the data commands whose cost a number in their arguments sets, rather than their
 * own size or the size of the data they name (command-policy.ts classifies every data command).
 * Measured on redis-server 7: `SETRANGE k 67108863 x` (35 bytes) grew the server by 80 MiB,
 * and `SCAN 0 COUNT 100000000` walked the whole keyspace in one call, as KEYS does. Under
 * `allowAdmin` none of these bounds apply: an administrator may do anything anyway.
 *
 * - Growth by offset. SETRANGE, SETBIT and the writes of BITFIELD make Redis allocate up to the
 *   offset they name. One request may grow strings, summed over the keys it writes, by at
 *   most `maxGrowthBytes` (the bridge's largest body): what one `SET` of the largest value the
 *   bridge accepts allocates anyway. Summed per request, because a pipeline of 10,000 small
 *   SETRANGEs to different keys would otherwise multiply the bound by 10,000; per key the
 *   largest offset counts once, so a pipeline of SETBITs into one bitmap is bounded by the
 *   bitmap's size, not by how many bits it sets.
 * - Incremental scans. SCAN, HSCAN, SSCAN and ZSCAN take COUNT ≤ {@link MAX_SCAN_COUNT}.
 * - Repeating random picks. A negative count lets SRANDMEMBER, ZRANDMEMBER and HRANDFIELD
 *   repeat elements, so a one-member set answers a count of −100,000,000 with 100 million
 *   elements; its size is at most {@link MAX_REPEATED_PICKS}. A positive count returns
 *   distinct elements, never more than the collection holds, and is not bounded.
 * - COPY … DB n writes into another database, which the bridge offers no other way to reach
 *   (SELECT and MOVE are not available): refused.
 */
import { keyword, type BridgeCommand } from './request-body.ts';

/**
 * Largest COUNT of a SCAN-family call: 2× the 500 keys a cachette store asks for per step
 * when it clears a prefix (redis-protocol.ts's SCAN_BATCH), and about a millisecond of Redis,
 * which visits at most 10 × COUNT buckets per call. The point of SCAN is bounded work per call;
 * whoever wants a whole hash or set at once has HGETALL and SMEMBERS, whose cost is the size of
 * data someone stored.
 */
export const MAX_SCAN_COUNT = 1000;

/**
 * Most elements a negative (repeating) count may ask for: the reply of 1,000 pipelined GETs of
 * the collection's largest member, which a pipeline may send anyway.
 */
export const MAX_REPEATED_PICKS = 1000;

/** Why a command exceeds a bound (an `ERR …` message), or undefined when it does not. */
export type Bound = (command: BridgeCommand, request: RequestBounds) => string | undefined;

/** What the bounds that add up over one request's commands have counted so far. */
export class RequestBounds {
  readonly #grownTo = new Map<string, number>();
  #total = 0;

  constructor(private readonly maxGrowthBytes: number) {}

  /** Counts a command that may grow the string at `key` to `bytes`; a message when the request's total would exceed the bound. */
  grows(command: BridgeCommand, key: string, bytes: number): string | undefined {
    const before = this.#grownTo.get(key) ?? 0;
    if (bytes <= before) return undefined;
    const total = this.#total + bytes - before;
    if (total > this.maxGrowthBytes) {
      return `ERR ${command.wireName} could grow strings by ${total} bytes in this request; the bridge allows ${this.maxGrowthBytes} per request (--max-body-bytes), or any with --allow-admin`;
    }
    this.#grownTo.set(key, bytes);
    this.#total = total;
    return undefined;
  }
}

/** SETRANGE key offset value: the string grows to offset + the value's length (an empty value writes nothing). */
export const setrangeBound: Bound = (command, request) => {
  const [key, offsetText, value] = command.args;
  if (key === undefined || value === undefined || value === '') return undefined;
  const offset = integer(offsetText);
  if (offset === undefined) return notInteger(command, 'offset');
  return offset < 0 ? undefined : request.grows(command, key, offset + Buffer.byteLength(value));
};

/** SETBIT key offset bit: the string grows to hold bit `offset`. */
export const setbitBound: Bound = (command, request) => {
  const [key, offsetText] = command.args;
  if (key === undefined || offsetText === undefined) return undefined;
  const offset = integer(offsetText);
  if (offset === undefined) return notInteger(command, 'offset');
  return offset < 0 ? undefined : request.grows(command, key, Math.floor(offset / 8) + 1);
};

/**
 * BITFIELD key [GET type offset] [SET type offset value] [INCRBY type offset increment]
 * [OVERFLOW WRAP|SAT|FAIL]…: the string grows to hold the highest bit a SET or INCRBY writes
 * (`#n` offsets count in units of the type's width); GET never grows it. Read the way Redis
 * reads it, operation by operation: anything else is refused rather than guessed at.
 */
export const bitfieldBound: Bound = (command, request) => {
  const [key, ...operations] = command.args;
  if (key === undefined) return undefined;
  let highestBit = -1;
  for (let i = 0; i < operations.length; ) {
    const operation = keyword(operations[i]);
    if (operation === 'overflow') {
      i += 2;
      continue;
    }
    if (operation !== 'get' && operation !== 'set' && operation !== 'incrby') return `ERR the bridge cannot read BITFIELD's ${JSON.stringify(operations[i])}: use GET, SET, INCRBY and OVERFLOW`;
    const width = /^[iu](\d{1,2})$/i.exec(operations[i + 1] ?? '')?.[1];
    const offsetText = operations[i + 2] ?? '';
    const units = integer(offsetText.startsWith('#') ? offsetText.slice(1) : offsetText);
    if (width === undefined || units === undefined) return `ERR the bridge cannot read BITFIELD's ${operation.toUpperCase()} ${operations[i + 1] ?? ''} ${offsetText}`;
    const bit = offsetText.startsWith('#') ? units * Number(width) : units;
    if (operation !== 'get' && bit >= 0) highestBit = Math.max(highestBit, bit + Number(width) - 1);
    i += operation === 'get' ? 3 : 4;
  }
  return highestBit < 0 ? undefined : request.grows(command, key, Math.floor(highestBit / 8) + 1);
};

/** SCAN cursor [MATCH p] [COUNT n] [TYPE t]: COUNT is bounded. */
export const scanBound: Bound = (command) => scanCountBound(command, 1);

/** HSCAN, SSCAN, ZSCAN key cursor [MATCH p] [COUNT n] [NOVALUES]: COUNT is bounded. */
export const collectionScanBound: Bound = (command) => scanCountBound(command, 2);

/** SRANDMEMBER, ZRANDMEMBER, HRANDFIELD key [count …]: a negative (repeating) count is bounded. */
export const randomPickBound: Bound = (command) => {
  const countText = command.args[1];
  if (countText === undefined) return undefined;
  const count = integer(countText);
  if (count === undefined) return notInteger(command, 'count');
  if (count >= -MAX_REPEATED_PICKS) return undefined;
  return `ERR ${command.wireName} with a count of ${count} repeats elements; the bridge allows at most ${MAX_REPEATED_PICKS} repeated picks (-${MAX_REPEATED_PICKS}), or any with --allow-admin`;
};

/** COPY source destination [DB n] [REPLACE]: DB is refused. */
export const copyBound: Bound = (command) =>
  command.args.slice(2).some((arg) => keyword(arg) === 'db') ? 'ERR COPY … DB writes into another database, which the bridge does not reach without --allow-admin' : undefined;

/**
 * The options of a SCAN-family call, read as Redis reads them (keyword and value pairs from
 * `start`, NOVALUES alone), so that a MATCH pattern spelled "COUNT" is a pattern. Redis
 * refuses an unknown option, so the walk stops there.
 */
function scanCountBound(command: BridgeCommand, start: number): string | undefined {
  const { args } = command;
  for (let i = start; i < args.length; i += 2) {
    const option = keyword(args[i]);
    if (option === 'novalues') i--;
    else if (option === 'count') {
      const count = integer(args[i + 1] ?? '');
      if (count === undefined) return notInteger(command, 'COUNT');
      if (count > MAX_SCAN_COUNT)
        return `ERR ${command.wireName} COUNT ${count} would walk that much of the data in one call; the bridge allows COUNT up to ${MAX_SCAN_COUNT}, or any with --allow-admin`;
    } else if (option !== 'match' && option !== 'type') return undefined;
  }
  return undefined;
}

/** A decimal integer argument, or undefined (Redis refuses anything else where a number goes, with no effect). */
function integer(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d{1,20}$/.test(text) ? Number(text) : undefined;
}

function notInteger(command: BridgeCommand, what: string): string {
  return `ERR ${command.wireName}'s ${what} must be a decimal integer: the bridge bounds it`;
}
