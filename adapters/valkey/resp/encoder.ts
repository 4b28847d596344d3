/**
 * Encodes commands as RESP2 arrays of bulk strings, binary-safe, into one growing run of bytes:
 * a store call (one tick of the engine) encodes all its commands, then {@link RespEncoder.take}s
 * them as one buffer to write to the socket at once.
 *
 * Bytes go into a slab that is never rewritten: each take hands out a view of the part written
 * since the last one, and the next commands continue after it, so handing out costs no copy and
 * a command's bytes stay valid for as long as anything (a socket write, a resend after a
 * reconnect) holds them. A full slab is replaced by a new one; what was written into it since
 * the last take moves along only when it is small, and is otherwise closed as a chunk of the
 * take where it lies. Values from {@link BY_REFERENCE} bytes on are not copied at all: they
 * travel as their own chunk.
 *
 * Copying a value costs more than the socket's handling of one more chunk from a few KiB on:
 * encoding and writing a tick of 50 SETs of ~14 KiB JSON documents took 0.36–0.65× the CPU with
 * values from 4 KiB by reference (and large parts closed instead of copied) than with values up
 * to 32 KiB copied, on Node, Bun and Deno.
 */

import type { HeadedText } from '../../../src/store/text-entry.ts';

const CR = 13;
const LF = 10;

/** Values from this size on are written by reference (their own chunk) instead of copied into the slab. */
export const BY_REFERENCE = 4 * 1024;

/** Strings up to this many UTF-16 units are copied byte by byte (ASCII); longer ones through Buffer's encoder. */
const SHORT_STRING = 64;

/** The bytes of `*<argc>\r\n$<len>\r\n<name>\r\n`: a command's fixed start, encoded once. */
export function commandHead(name: string, argc: number): Uint8Array {
  return Buffer.from(`*${argc}\r\n$${name.length}\r\n${name}\r\n`, 'latin1');
}

/** The bytes of a bulk string `$<len>\r\n<text>\r\n` (a command's name, a fixed option), encoded once. */
export function bulk(text: string): Uint8Array {
  return Buffer.from(`$${text.length}\r\n${text}\r\n`, 'latin1');
}

/** Encodes commands; see the module comment. */
export class RespEncoder {
  readonly #slabBytes: number;
  #slab: Buffer;
  /** Where the next byte goes. */
  #pos = 0;
  /** Where the bytes not yet handed out start in the slab. */
  #open = 0;
  /** Chunks of the current take already closed (a value written by reference, and the bytes before it). */
  #chunks: Buffer[] = [];
  /** Bytes in {@link #chunks}. */
  #closed = 0;

  constructor(slabBytes = 64 * 1024) {
    this.#slabBytes = slabBytes;
    this.#slab = Buffer.allocUnsafeSlow(slabBytes);
  }

  /** Bytes encoded since the last {@link take}: a command's offset, for slicing it out later. */
  get size(): number {
    return this.#closed + this.#pos - this.#open;
  }

  /** Starts a command of `argc` arguments (its name included), to be followed by exactly that many. */
  array(argc: number): void {
    this.#header(0x2a, argc);
  }

  /** Copies pre-encoded bytes (a {@link commandHead}). */
  raw(bytes: Uint8Array): void {
    const length = bytes.length;
    this.#ensure(length);
    const slab = this.#slab;
    let pos = this.#pos;
    if (length <= 32) for (let i = 0; i < length; i++) slab[pos++] = bytes[i]!;
    else {
      slab.set(bytes, pos);
      pos += length;
    }
    this.#pos = pos;
  }

  /** A bulk string holding `text` as UTF-8. */
  string(text: string): void {
    const length = text.length;
    if (length <= SHORT_STRING) {
      // ASCII is by far the usual key: its byte length is its length, and a loop beats a call into C++.
      this.#ensure(length + 16);
      const slab = this.#slab;
      const start = this.#pos;
      slab[start] = 0x24;
      let pos = writeUint(slab, start + 1, length);
      slab[pos++] = CR;
      slab[pos++] = LF;
      pos = writeAscii(slab, pos, text);
      if (pos < 0) {
        this.#utf8(text);
        return;
      }
      slab[pos] = CR;
      slab[pos + 1] = LF;
      this.#pos = pos + 2;
      return;
    }
    this.#utf8(text);
  }

  /** A bulk string holding `value`'s bytes. */
  bytes(value: Uint8Array): void {
    const length = value.length;
    this.#header(0x24, length);
    if (length >= BY_REFERENCE) {
      // Close the slab's part, then the value itself as a chunk: it is not copied.
      this.#close();
      this.#chunks.push(Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, length));
      this.#closed += length;
    } else {
      this.#ensure(length + 2);
      this.#slab.set(value, this.#pos);
      this.#pos += length;
    }
    this.#ensure(2);
    this.#slab[this.#pos++] = CR;
    this.#slab[this.#pos++] = LF;
  }

  /**
   * A bulk string holding `value`: its text written once, through Buffer's UTF-8 writer, where
   * it stays, and its head in place before it, so that the value becomes bytes here instead of
   * in a buffer of its own that is then copied in (or sent as a chunk of its own). The text goes
   * where it would go if it were ASCII; when its UTF-8 length needs another digit in the bulk
   * string's length, the text moves by that many bytes within the slab (a move, not a second
   * encoding), and the head is written last, with the byte length the writer returned.
   */
  headed(value: HeadedText): void {
    const head = value.headLength;
    const text = value.text;
    const units = text.length;
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit: room for the most it may take, so that the slab
    // stays while it is written. A long text is counted instead (a count, not a write), so that
    // a slab never grows to three times what it holds.
    const most = 3 * units <= this.#slabBytes >>> 2 ? 3 * units : Buffer.byteLength(text, 'utf8');
    this.#ensure(16 + head + most + 2);
    const slab = this.#slab;
    const start = this.#pos;
    const guessed = digitCount(head + units);
    const from = start + 1 + guessed + 2 + head;
    const written = units === 0 ? 0 : (slab as Buffer & Utf8Writer).utf8Write(text, from, most);
    const length = head + written;
    // The text moves before the length is written over its first bytes.
    const at = start + 1 + digitCount(length) + 2;
    if (at + head !== from) slab.copyWithin(at + head, from, from + written);
    slab[start] = 0x24;
    writeUint(slab, start + 1, length);
    slab[at - 2] = CR;
    slab[at - 1] = LF;
    value.writeHead(slab, at, written);
    const end = at + length;
    slab[end] = CR;
    slab[end + 1] = LF;
    this.#pos = end + 2;
  }

  /** A bulk string holding the decimal form of `value` (counts, steps, milliseconds). */
  number(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) {
      this.string(String(value));
      return;
    }
    this.#ensure(32);
    const slab = this.#slab;
    const digits = digitCount(value);
    slab[this.#pos] = 0x24;
    let pos = writeUint(slab, this.#pos + 1, digits);
    slab[pos++] = CR;
    slab[pos++] = LF;
    pos = writeUint(slab, pos, value);
    slab[pos] = CR;
    slab[pos + 1] = LF;
    this.#pos = pos + 2;
  }

  /** Everything encoded since the last take, as chunks to write in order (one, unless a value went by reference). */
  take(): Buffer[] {
    this.#close();
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#closed = 0;
    return chunks;
  }

  #utf8(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    this.#header(0x24, length);
    this.#ensure(length + 2);
    this.#pos += this.#slab.write(text, this.#pos, length, 'utf8');
    this.#slab[this.#pos++] = CR;
    this.#slab[this.#pos++] = LF;
  }

  /** `*<n>\r\n` (an array) or `$<n>\r\n` (a bulk string's length). */
  #header(type: number, n: number): void {
    this.#ensure(16);
    const slab = this.#slab;
    slab[this.#pos] = type;
    const pos = writeUint(slab, this.#pos + 1, n);
    slab[pos] = CR;
    slab[pos + 1] = LF;
    this.#pos = pos + 2;
  }

  /** Ends the slab's open part as a chunk of the current take. */
  #close(): void {
    if (this.#pos === this.#open) return;
    this.#chunks.push(this.#slab.subarray(this.#open, this.#pos));
    this.#closed += this.#pos - this.#open;
    this.#open = this.#pos;
  }

  /**
   * Makes room for `bytes` more; a full slab is left to whatever still holds views of it. The
   * part not yet taken moves to the new slab when it is small (so that a take stays one chunk),
   * and is closed as a chunk of the take otherwise (a copy of a large part costs more than the
   * chunk).
   */
  #ensure(bytes: number): void {
    if (this.#pos + bytes <= this.#slab.length) return;
    const open = this.#pos - this.#open;
    const moves = open <= this.#slabBytes >>> 2;
    const slab = Buffer.allocUnsafeSlow(Math.max(this.#slabBytes, 2 * ((moves ? open : 0) + bytes)));
    if (moves) this.#slab.copy(slab, 0, this.#open, this.#pos);
    else this.#close();
    this.#slab = slab;
    this.#open = 0;
    this.#pos = moves ? open : 0;
  }
}

/** The bytes `from` (inclusive) to `to` (exclusive) of `chunks` taken together, without a copy when they sit in one chunk. */
export function sliceChunks(chunks: readonly Buffer[], from: number, to: number): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (const chunk of chunks) {
    const end = offset + chunk.length;
    if (end > from && offset < to) parts.push(chunk.subarray(Math.max(from - offset, 0), Math.min(to, end) - offset));
    if (end >= to) break;
    offset = end;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, to - from);
}

/**
 * Writes `text` at `pos` when it is all ASCII (its bytes are its UTF-16 units) and returns the
 * position after it, or returns -1 (having written part of it) when it is not.
 */
type AsciiWrite = (slab: Buffer, pos: number, text: string) => number;

/** One byte at a time: on V8 (Node, Deno) a loop beats a call into the runtime for a key's few bytes. */
const asciiByLoop: AsciiWrite = (slab, pos, text) => {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return -1;
    slab[pos++] = code;
  }
  return pos;
};

/**
 * Through Buffer's UTF-8 writer, which writes as many bytes as the text has units only when it
 * is ASCII: any other unit takes 2 to 4 bytes, and with room for 4 more a text cut short at a
 * character still writes more bytes than it has units. (The caller made room for them.)
 */
const asciiByWriter: AsciiWrite = (slab, pos, text) => {
  const length = text.length;
  return (slab as Buffer & Utf8Writer).utf8Write(text, pos, length + 4) === length ? pos + length : -1;
};

/** Buffer's own UTF-8 writer (Node's, Deno's and Bun's Buffer have it). */
interface Utf8Writer {
  utf8Write(text: string, offset: number, length: number): number;
}

/**
 * How a short key is written: on Bun through Buffer's writer, which costs JavaScriptCore about
 * half the loop's time for a 30-byte key (75–115 against 115–160 ns, best of 15 rounds on a
 * loaded machine), while on Node and Deno the loop costs less (Deno's writer 3–4× more).
 */
const writeAscii: AsciiWrite = typeof (globalThis as { Bun?: unknown }).Bun === 'object' ? asciiByWriter : asciiByLoop;

function digitCount(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** Writes the decimal digits of a non-negative safe integer at `pos`; returns the position after them. */
function writeUint(buffer: Buffer, pos: number, value: number): number {
  if (value < 10) {
    buffer[pos] = 48 + value;
    return pos + 1;
  }
  if (value < 100) {
    buffer[pos] = 48 + Math.floor(value / 10);
    buffer[pos + 1] = 48 + (value % 10);
    return pos + 2;
  }
  const end = pos + digitCount(value);
  let at = end;
  for (let rest = value; rest > 0; rest = Math.floor(rest / 10)) buffer[--at] = 48 + (rest % 10);
  return end;
}
