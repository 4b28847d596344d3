/**
 * The row id of a key: a 53-bit hash of it under a seed drawn once per file (so every process,
 * on every runtime, computes the same id, and nobody without the file can aim two keys at one
 * id). Entries live in a rowid table keyed by this id, so a write touches one B-tree (no
 * separate key index to keep), rows of any size keep SQLite's compact rowid layout, and rows in
 * id order are a uniform sample of the file, which is how eviction and the expiry sweep walk it.
 * Two keys with one id are told apart by the key stored in the row: the later write takes the
 * slot and the earlier key is a miss, as if evicted (odds for a million keys: about 5 in 10^5).
 */

/** The seed's two halves, as stored in the file. */
export interface KeySeed {
  readonly high: number;
  readonly low: number;
}

/** A fresh seed: 53 random bits, split as {@link keyHash} takes them. */
export function newKeySeed(): number {
  const [a, b] = crypto.getRandomValues(new Uint32Array(2));
  return (a! & 0x1fffff) * 2 ** 32 + b!;
}

/** The halves of a stored seed (a non-negative integer below 2^53). */
export function splitKeySeed(seed: number): KeySeed {
  return { high: Math.floor(seed / 2 ** 32), low: seed >>> 0 };
}

/**
 * The id of `key`: a non-negative integer below 2^53 (two 32-bit multiply-xorshift lanes over
 * the UTF-16 code units, cyrb53's mixing), the same on Node, Bun and Deno.
 */
export function keyHash(key: string, seed: KeySeed): number {
  let h1 = 0xdeadbeef ^ seed.low;
  let h2 = 0x41c6ce57 ^ seed.high;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ unit, 2654435761);
    h2 = Math.imul(h2 ^ unit, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 & 0x1fffff) * 2 ** 32 + (h1 >>> 0);
}
