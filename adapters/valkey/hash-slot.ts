/**
 * Where a key lives on a Valkey/Redis Cluster, computed as the server does (Redis Cluster
 * specification, "Key distribution model"): the CRC16 (XMODEM: polynomial 0x1021, initial value
 * 0) of the key's UTF-8 bytes, modulo 16384. When the key holds a hash tag, only the tag is
 * hashed: the bytes between the first `{` and the first `}` after it, provided there is at least
 * one byte between them. Keys with the same tag therefore share a slot, and so a node: one
 * MGET, one MSET or one script may use them together.
 *
 * The hash-tag scheme of cachette (which keys share a slot, and what that does to the spread of
 * keys over the masters) is documented in the README's "Cluster" section; the helpers below are
 * its building blocks.
 */

/** The number of hash slots of every Valkey/Redis Cluster. */
export const SLOT_COUNT = 16384;

const encoder = new TextEncoder();

/** CRC16-XMODEM of every byte value, so the hash costs one lookup per byte. */
const CRC_TABLE = ((): Uint16Array => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

/**
 * The part of `key` that decides its slot: the hash tag when it has one, else the whole key.
 * Returns start and end offsets into the string (`{` and `}` are ASCII, so string offsets cut the
 * UTF-8 bytes at the same places).
 */
function hashedRange(key: string): [start: number, end: number] {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return [open + 1, close];
  }
  return [0, key.length];
}

/** CRC16-XMODEM of the UTF-8 bytes of `text.slice(start, end)`. */
function crc16(text: string, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    // Beyond ASCII the UTF-8 bytes are not the char codes: encode that part once and hash the bytes.
    if (code >= 0x80) {
      for (const byte of encoder.encode(text.slice(i, end))) crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
      return crc;
    }
    crc = ((crc << 8) ^ CRC_TABLE[((crc >> 8) ^ code) & 0xff]!) & 0xffff;
  }
  return crc;
}

/** The cluster hash slot of `key` (0 … 16383), as `CLUSTER KEYSLOT` answers it. */
export function hashSlot(key: string): number {
  const [start, end] = hashedRange(key);
  return crc16(key, start, end) % SLOT_COUNT;
}

/** The hash tag that places `key` (the text between its first `{` and the next `}`), or undefined when the whole key is hashed. */
export function hashTagOf(key: string): string | undefined {
  const [start, end] = hashedRange(key);
  return start === 0 && end === key.length ? undefined : key.slice(start, end);
}

/**
 * A key that lives in the same slot as `key`, for a companion that a script reads or writes
 * together with it (a fill lease beside its entry): `key + suffix` when `key` carries a hash tag
 * (the tag stays the first one), otherwise `{key}` + suffix, which hashes exactly the bytes that
 * place `key`. A key holding a `}` but no hash tag cannot be wrapped that way (its own `}` would
 * end the tag early): that is a TypeError naming the key, so no caller builds a companion that
 * silently lands elsewhere.
 */
export function colocatedKey(key: string, suffix: string): string {
  if (hashTagOf(key) !== undefined) return key + suffix;
  if (key.length === 0 || key.includes('}')) {
    throw new TypeError(
      `colocatedKey: no key can share the slot of ${JSON.stringify(key)} (it ${key.length === 0 ? 'is empty' : 'holds a "}" without a hash tag'}); give it a hash tag such as "{id}"`,
    );
  }
  return `{${key}}${suffix}`;
}
