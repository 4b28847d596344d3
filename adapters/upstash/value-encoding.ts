/**
 * How bytes travel through the Upstash REST protocol, which is JSON and therefore text.
 *
 * A value whose bytes are a decimal integer (`-?[0-9]+`) is stored as that text, unchanged,
 * so the server's own INCRBY works on counters and `get` of a counter returns its digits.
 * Every other value is stored as `~` followed by its base64: ASCII only, so it survives JSON,
 * UTF-8 and the SDK's optional `Upstash-Encoding: base64` decoding, and `~` can start neither
 * an integer nor base64 nor a JSON text (a client with automatic JSON deserialization leaves
 * it alone). Cost: 4/3 of the bytes on the server and on the wire, plus one base64 pass.
 */
import { fromBase64, toBase64 } from './base64.ts';

/** First character of every stored value that is not a plain decimal integer. */
export const BINARY_MARKER = '~';

const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const ascii = new TextDecoder();
const utf8 = new TextEncoder();

/** The text stored on the server for `bytes`. */
export function encodeValue(bytes: Uint8Array): string {
  return isDecimal(bytes) ? ascii.decode(bytes) : BINARY_MARKER + toBase64(bytes);
}

/**
 * The bytes of a reply, or undefined for a nil reply. Numbers appear when the caller's client
 * deserializes JSON automatically; the SDK only turns a string into a number when the number
 * prints back as the same string, so `String(n)` restores the exact digits.
 * Text that carries no marker was not written by this store; it is read as UTF-8 text.
 */
export function decodeValue(reply: unknown): Uint8Array | undefined {
  if (reply === null || reply === undefined) return undefined;
  if (typeof reply === 'number') return utf8.encode(String(reply));
  if (typeof reply !== 'string') throw new TypeError(`upstash store: unexpected reply of type ${typeof reply}`);
  return reply.startsWith(BINARY_MARKER) ? fromBase64(reply.slice(1)) : utf8.encode(reply);
}

function isDecimal(bytes: Uint8Array): boolean {
  const start = bytes[0] === MINUS ? 1 : 0;
  if (bytes.length <= start) return false;
  for (let i = start; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < ZERO || byte > NINE) return false;
  }
  return true;
}
