/**
 * An incremental RESP2 reply parser for the store's own connection (adapters/valkey/resp).
 *
 * Whatever the server sends is untrusted (docs/security.md): the parser checks every framing
 * byte, bounds what a reply may declare (bulk length, array length, nesting, line length) and
 * what a whole reply may hold (its elements, nested ones included, and the bytes received while
 * it is incomplete), and never allocates ahead of the bytes that actually arrived. A reply that
 * breaks the protocol or a bound throws a {@link RespProtocolError}; the connection then closes
 * and fails what it had in flight, so a hostile or broken server can neither grow memory without
 * bound nor leave a caller waiting on a reply that can never be parsed.
 *
 * Replies may arrive split at any byte. Complete replies are handed out as they are found: bulk
 * strings as `Buffer` views of the received chunk (no copy) when they fit in one chunk, else as
 * one buffer assembled once their last byte is in; arrays resume where they stopped.
 */

/** An error reply (`-ERR …`, `-WRONGTYPE …`). Named like iovalkey's, so both classify alike. */
export class ReplyError extends Error {
  override name = 'ReplyError';
}

/** The server broke the protocol: the connection cannot be trusted to stay in step. */
export class RespProtocolError extends Error {
  override name = 'RespProtocolError';
}

/** A parsed reply: bulk bytes, simple string, integer, nil, array or error reply. */
export type RespValue = Buffer | string | number | null | ReplyError | RespValue[];

/** What one reply may declare, so that a hostile server cannot make the client hold unbounded memory. */
export interface RespLimits {
  /** Largest bulk string, in bytes (Redis's own `proto-max-bulk-len` defaults to 512 MiB). */
  maxBulkBytes: number;
  /** Most elements of one array. */
  maxArrayLength: number;
  /** Deepest nesting of arrays. */
  maxDepth: number;
  /** Longest line (a simple string, an error message, a length or an integer), CRLF included. */
  maxLineBytes: number;
  /** Most elements of one whole reply, counting those of nested arrays. */
  maxReplyElements: number;
  /**
   * Most bytes received while one reply is incomplete (every chunk after the one it starts in,
   * the one it ends in included): what a reply can make the client hold before it is complete.
   */
  maxReplyBytes: number;
}

/**
 * Bounds for what a cache reads: values up to 512 MiB, a reply of at most 1 Mi elements in all
 * (the stores never ask for more than MAX_KEYS_PER_COMMAND values in one command) and 1 GiB.
 */
export const DEFAULT_LIMITS: RespLimits = {
  maxBulkBytes: 512 * 1024 * 1024,
  maxArrayLength: 1024 * 1024,
  maxDepth: 8,
  maxLineBytes: 64 * 1024,
  maxReplyElements: 1024 * 1024,
  maxReplyBytes: 1024 * 1024 * 1024,
};

/** Arrays longer than this are grown as elements arrive instead of being sized from the declared length. */
const PRESIZE_LIMIT = 1024;

const CR = 13;
const LF = 10;

/** An array still being filled. */
interface Frame {
  readonly items: RespValue[];
  /** Elements it declared. */
  readonly length: number;
  /** Elements received so far. */
  filled: number;
}

/** Parses a stream of replies; {@link feed} each chunk as it arrives. */
export class RespParser {
  readonly #onReply: (value: RespValue) => void;
  readonly #limits: RespLimits;
  /** Bytes of a line split by the end of a chunk, kept until its CRLF arrives. */
  #tail: Buffer | undefined;
  /** The open arrays, outermost first. */
  readonly #stack: Frame[] = [];
  /** A bulk string whose body spans chunks: its parts so far, and the bytes still missing (CRLF included). */
  #bulkParts: Buffer[] | undefined;
  #bulkLength = 0;
  #bulkMissing = 0;
  /** Elements put into the open arrays of the reply in progress, and bytes received while it stayed incomplete. */
  #replyElements = 0;
  #replyBytes = 0;

  constructor(onReply: (value: RespValue) => void, limits: RespLimits = DEFAULT_LIMITS) {
    this.#onReply = onReply;
    this.#limits = limits;
  }

  /** True while part of a reply has been received and the rest has not. */
  get partial(): boolean {
    return this.#tail !== undefined || this.#bulkParts !== undefined || this.#stack.length > 0;
  }

  /** Forgets any partial reply (the connection was replaced). */
  reset(): void {
    this.#tail = undefined;
    this.#stack.length = 0;
    this.#bulkParts = undefined;
    this.#replyElements = 0;
    this.#replyBytes = 0;
  }

  /** Parses `chunk`, handing out every reply it completes; throws {@link RespProtocolError} on a broken reply. */
  feed(chunk: Buffer): void {
    let buffer = chunk;
    let at = 0;
    if (this.partial) {
      // The chunk continues a reply: counted whole, so the bound is met within one chunk.
      this.#replyBytes += chunk.length;
      if (this.#replyBytes > this.#limits.maxReplyBytes) throw new RespProtocolError(`a reply of more than ${this.#limits.maxReplyBytes} bytes (the bound)`);
    }
    if (this.#bulkParts !== undefined) {
      at = this.#continueBulk(chunk);
      if (at < 0) return;
    } else if (this.#tail !== undefined) {
      buffer = Buffer.concat([this.#tail, chunk]);
      this.#tail = undefined;
    }
    const end = buffer.length;
    while (at < end) {
      const type = buffer[at]!;
      // Find the line's CR; a line split by the chunk's end waits for the next chunk.
      let cr = at + 1;
      while (cr < end && buffer[cr] !== CR) cr++;
      if (cr + 1 >= end) {
        if (end - at > this.#limits.maxLineBytes) throw new RespProtocolError(`a reply line longer than ${this.#limits.maxLineBytes} bytes`);
        this.#tail = Buffer.from(buffer.subarray(at));
        return;
      }
      if (buffer[cr + 1] !== LF) throw new RespProtocolError('a reply line not ended by CRLF');
      if (cr + 2 - at > this.#limits.maxLineBytes) throw new RespProtocolError(`a reply line longer than ${this.#limits.maxLineBytes} bytes`);
      const next = cr + 2;
      switch (type) {
        case 0x24: {
          // $<length>\r\n<bytes>\r\n
          const length = readLength(buffer, at + 1, cr);
          if (length === -1) {
            at = next;
            this.#deliver(null);
            break;
          }
          if (length > this.#limits.maxBulkBytes) throw new RespProtocolError(`a bulk string of ${length} bytes (the bound is ${this.#limits.maxBulkBytes})`);
          const close = next + length;
          if (close + 2 <= end) {
            if (buffer[close] !== CR || buffer[close + 1] !== LF) throw new RespProtocolError('a bulk string not ended by CRLF');
            at = close + 2;
            this.#deliver(buffer.subarray(next, close));
            break;
          }
          // The body continues in later chunks: keep what is here, assemble once complete.
          this.#bulkParts = next < end ? [buffer.subarray(next)] : [];
          this.#bulkLength = length;
          this.#bulkMissing = length + 2 - (end - next);
          return;
        }
        case 0x2a: {
          // *<count>\r\n then that many replies
          const length = readLength(buffer, at + 1, cr);
          at = next;
          if (length === -1) this.#deliver(null);
          else if (length === 0) this.#deliver([]);
          else {
            if (length > this.#limits.maxArrayLength) throw new RespProtocolError(`an array of ${length} elements (the bound is ${this.#limits.maxArrayLength})`);
            if (this.#stack.length >= this.#limits.maxDepth) throw new RespProtocolError(`arrays nested deeper than ${this.#limits.maxDepth}`);
            // A declared length is only a claim: beyond a small size, the array grows as elements arrive.
            this.#stack.push({ items: length <= PRESIZE_LIMIT ? new Array<RespValue>(length) : [], length, filled: 0 });
          }
          break;
        }
        case 0x3a:
          // :<integer>\r\n
          this.#deliver(readInteger(buffer, at + 1, cr));
          at = next;
          break;
        case 0x2b:
          // +<simple string>\r\n; writes answer OK, so that one is not decoded each time.
          this.#deliver(cr - at === 3 && buffer[at + 1] === 0x4f && buffer[at + 2] === 0x4b ? 'OK' : buffer.toString('latin1', at + 1, cr));
          at = next;
          break;
        case 0x2d:
          // -<error message>\r\n
          this.#deliver(new ReplyError(buffer.toString('utf8', at + 1, cr)));
          at = next;
          break;
        default:
          throw new RespProtocolError(`unexpected reply type byte 0x${type.toString(16).padStart(2, '0')}`);
      }
    }
  }

  /** Adds the bytes of `chunk` to the bulk string in progress; returns where parsing resumes, or -1 when the chunk was all body. */
  #continueBulk(chunk: Buffer): number {
    const parts = this.#bulkParts!;
    if (chunk.length < this.#bulkMissing) {
      parts.push(chunk);
      this.#bulkMissing -= chunk.length;
      return -1;
    }
    const used = this.#bulkMissing;
    parts.push(chunk.subarray(0, used));
    this.#bulkParts = undefined;
    const whole = Buffer.concat(parts, this.#bulkLength + 2);
    if (whole[this.#bulkLength] !== CR || whole[this.#bulkLength + 1] !== LF) throw new RespProtocolError('a bulk string not ended by CRLF');
    this.#deliver(whole.subarray(0, this.#bulkLength));
    return used;
  }

  /** Puts a complete value into the innermost open array, closing every array it completes, or hands it out. */
  #deliver(value: RespValue): void {
    const stack = this.#stack;
    while (stack.length > 0) {
      if (++this.#replyElements > this.#limits.maxReplyElements) throw new RespProtocolError(`a reply of more than ${this.#limits.maxReplyElements} elements (the bound)`);
      const frame = stack[stack.length - 1]!;
      frame.items[frame.filled++] = value;
      if (frame.filled < frame.length) return;
      stack.pop();
      value = frame.items;
    }
    this.#replyElements = 0;
    this.#replyBytes = 0;
    this.#onReply(value);
  }
}

/** A length field: -1 (nil) or a non-negative decimal of at most 10 digits. */
function readLength(buffer: Buffer, from: number, to: number): number {
  if (to - from === 2 && buffer[from] === 0x2d && buffer[from + 1] === 0x31) return -1;
  return readDigits(buffer, from, to, 10, 'length');
}

/** An integer reply: an optional minus sign and 1 to 19 digits (a 64-bit integer; beyond 2^53 it loses precision, as numbers do). */
function readInteger(buffer: Buffer, from: number, to: number): number {
  return buffer[from] === 0x2d ? -readDigits(buffer, from + 1, to, 19, 'integer') : readDigits(buffer, from, to, 19, 'integer');
}

/** The decimal digits `buffer[from, to)`: at least one, at most `most`, nothing else. */
function readDigits(buffer: Buffer, from: number, to: number, most: number, what: string): number {
  if (to === from || to - from > most) throw new RespProtocolError(`a malformed ${what}`);
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = buffer[i]! - 48;
    if (digit < 0 || digit > 9) throw new RespProtocolError(`a malformed ${what}`);
    n = n * 10 + digit;
  }
  return n;
}
