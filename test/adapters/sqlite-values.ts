/**
 * Self-checking values for the multi-process tests: a header (length, seed) and a body every
 * byte of which follows from the seed, so a reader can tell a whole value from a torn one
 * (half of one write and half of another, or a short read).
 */

/** A value of `size` bytes (at least 8) derived from `seed`. */
export function makeValue(size: number, seed: number): Uint8Array {
  const value = new Uint8Array(size);
  const view = new DataView(value.buffer);
  view.setUint32(0, size);
  view.setUint32(4, seed);
  for (let i = 8; i < size; i++) value[i] = (seed + i * 2654435761) >>> 24;
  return value;
}

/** True when `value` is exactly what {@link makeValue} made for its own header. */
export function checkValue(value: Uint8Array): boolean {
  if (value.length < 8) return false;
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const size = view.getUint32(0);
  const seed = view.getUint32(4);
  if (size !== value.length) return false;
  for (let i = 8; i < size; i++) if (value[i] !== (seed + i * 2654435761) >>> 24) return false;
  return true;
}
