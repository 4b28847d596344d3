/**
 * SHA-256 (FIPS 180-4), synchronous and in plain JavaScript, for short inputs such as cache
 * keys. WebCrypto's `crypto.subtle.digest` is asynchronous and costs tens of microseconds per
 * call on Node whatever the input size; this costs about a microsecond per 64-byte block.
 */
import { toHex } from './hex.ts';

/** The first 64 primes: the constants below are derived from them, as the standard defines. */
const PRIMES: number[] = [];
for (let candidate = 2; PRIMES.length < 64; candidate++) {
  if (PRIMES.every((p) => candidate % p !== 0)) PRIMES.push(candidate);
}
/** The first 32 bits of the fractional part of `x`, as a signed 32-bit integer. */
const fraction32 = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) | 0;
/** Initial hash value: fractional parts of the square roots of the first 8 primes (§5.3.3). */
const INITIAL = Int32Array.from(PRIMES.slice(0, 8), (p) => fraction32(Math.sqrt(p)));
/** Round constants: fractional parts of the cube roots of the first 64 primes (§4.2.2). */
const ROUND = Int32Array.from(PRIMES, (p) => fraction32(Math.cbrt(p)));

const utf8 = new TextEncoder();
// Arithmetic is modulo 2^32 in signed 32-bit integers (`| 0`): V8 keeps those unboxed, where
// unsigned values above 2^31 would become heap numbers.
const schedule = new Int32Array(64);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** The SHA-256 digest of `text`'s UTF-8 bytes, as 64 lower-case hex digits. */
export function sha256Hex(text: string): string {
  const data = utf8.encode(text);
  // Padding (§5.1.1): a 1 bit, zeros, then the length in bits as a 64-bit big-endian number.
  const padded = new Uint8Array(((data.length + 9 + 63) >>> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = data.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);

  const hash = INITIAL.slice();
  const w = schedule;
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getInt32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
    }
    let a = hash[0]!;
    let b = hash[1]!;
    let c = hash[2]!;
    let d = hash[3]!;
    let e = hash[4]!;
    let f = hash[5]!;
    let g = hash[6]!;
    let h = hash[7]!;
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + ROUND[t]! + w[t]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    hash[0] = hash[0]! + a;
    hash[1] = hash[1]! + b;
    hash[2] = hash[2]! + c;
    hash[3] = hash[3]! + d;
    hash[4] = hash[4]! + e;
    hash[5] = hash[5]! + f;
    hash[6] = hash[6]! + g;
    hash[7] = hash[7]! + h;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setInt32(i * 4, hash[i]!);
  return toHex(out);
}
