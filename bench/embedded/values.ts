/** Deterministic payloads for the embedded benchmark, so every contender stores the same bytes. */

/** A xorshift generator: the same seed gives the same workload in every process and run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** `size` bytes of printable ASCII (so string-only libraries store the same length), varied by `seed`. */
export function payload(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  const next = rng(seed + 1);
  for (let i = 0; i < size; i++) out[i] = 0x21 + Math.floor(next() * 90);
  return out;
}
