/**
 * Small byte buffers carved out of shared slabs. A fresh `new Uint8Array(n)` above 64 bytes
 * costs V8 an off-heap allocation (~0.6 µs on Node 20, more than the whole rest of an entry's
 * encoding); a view into a slab costs ~30 ns. The trade-off is the one Node's own Buffer pool
 * makes: a view that lives on keeps its slab (8 KiB) alive, so only small buffers are pooled.
 * Slabs are never reused, so a view never shows bytes of an earlier one.
 */
const SLAB_BYTES = 8 * 1024;
/**
 * JavaScriptCore (Bun) is the other way round: a small typed array is allocated on its own heap
 * (0.11 µs for 200 bytes), and a view into an ArrayBuffer costs it three times that (0.33 µs;
 * V8 1.3 against 0.24). There nothing is pooled.
 */
const POOLS = typeof (globalThis as { Bun?: unknown }).Bun === 'undefined';
const MAX_POOLED = POOLS ? SLAB_BYTES >>> 1 : 0;

let slab = new ArrayBuffer(SLAB_BYTES);
let offset = 0;

/** Room for `size` bytes in the current slab (a new slab when it is full), not yet taken. */
function room(size: number): Uint8Array {
  if (offset + size > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    offset = 0;
  }
  return new Uint8Array(slab, offset, size);
}

/** Takes the first `size` bytes of the room last given, keeping views 8-byte aligned. */
function take(size: number): void {
  offset += (size + 7) & ~7;
}

/** A zero-filled Uint8Array of `size` bytes (pooled when small). */
export function allocBytes(size: number): Uint8Array {
  if (size > MAX_POOLED) return new Uint8Array(size);
  const out = room(size);
  take(size);
  return out;
}

/** A copy of `bytes` that shares nothing with it. */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const out = allocBytes(bytes.length);
  out.set(bytes);
  return out;
}

const utf8Encoder = new TextEncoder();
const EMPTY_RESULT: TextEncoderEncodeIntoResult = { read: 0, written: 0 };

/**
 * `text` as UTF-8 bytes. Short texts are encoded straight into a slab (`encodeInto` needs no
 * allocation of its own, which on Node costs more than the encoding); long ones get their own
 * buffer.
 */
export function utf8Bytes(text: string): Uint8Array {
  return utf8BytesAfter(0, text);
}

/**
 * `head` zero bytes followed by `text` as UTF-8, in one buffer: a header and a text payload are
 * written without a payload buffer of their own, and without copying the payload. Text is
 * first encoded into one byte per UTF-16 code unit, which is enough for ASCII (JSON of plain
 * data mostly is); only text that does not fit is encoded again with room for the worst case
 * (3 bytes per code unit), into the slab when small, else into a buffer of its exact size.
 */
export function utf8BytesAfter(head: number, text: string): Uint8Array {
  const ascii = head + text.length;
  const pooled = ascii <= MAX_POOLED;
  let out = pooled ? room(ascii) : new Uint8Array(ascii);
  let encoded = text.length === 0 ? EMPTY_RESULT : utf8Encoder.encodeInto(text, out.subarray(head));
  if (encoded.read < text.length) {
    const worst = head + text.length * 3;
    if (worst <= MAX_POOLED) {
      out = room(worst);
      encoded = utf8Encoder.encodeInto(text, out.subarray(head));
    } else {
      const bytes = utf8Encoder.encode(text);
      out = allocBytes(head + bytes.length);
      out.set(bytes, head);
      return out;
    }
  }
  const size = head + encoded.written;
  if (out.buffer === slab) take(size);
  return size === out.length ? out : out.subarray(0, size);
}

const looseDecoder = new TextDecoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of UTF-8 `bytes`; throws a TypeError when they are not valid UTF-8, as a fatal
 * TextDecoder does, without paying for one: a fatal decoder is up to four times slower than a
 * replacing one on Deno (27 against 7 µs for ~14 KiB of JSON), and invalid bytes always decode
 * to U+FFFD. So the text is decoded replacing, and only a text that holds U+FFFD (invalid
 * input, or the character itself, which valid UTF-8 may carry) is decoded again strictly.
 */
export function utf8Text(bytes: Uint8Array): string {
  const text = looseDecoder.decode(bytes);
  return text.indexOf('\uFFFD') < 0 ? text : strictDecoder.decode(bytes);
}

/** Texts up to this many bytes are read by {@link shortUtf8Text} one byte at a time. */
const SHORT_TEXT = 64;

/**
 * The UTF-8 text of `bytes[from, to)`, as {@link utf8Text} reads it, for short texts read often
 * (an entry's tag names, on every read of a tagged entry): ASCII is read one byte at a time,
 * which costs V8 less than half of a decoder call (0.20–0.24 against 0.46–0.60 µs for a
 * 10-byte name on Node and Deno; alike on Bun). Anything else goes to the decoder.
 */
export function shortUtf8Text(bytes: Uint8Array, from: number, to: number): string {
  if (to - from > SHORT_TEXT) return utf8Text(bytes.subarray(from, to));
  let text = '';
  for (let i = from; i < to; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) return utf8Text(bytes.subarray(from, to));
    text += String.fromCharCode(byte);
  }
  return text;
}
