/**
 * Big-endian numbers in byte arrays, for the stored formats (src/store/layout/). Numbers are
 * moved byte by byte through one scratch float: a DataView per entry costs V8 an object of its
 * own (~70 ns, more than the rest of an envelope's header).
 */

const scratch = new Uint8Array(8);
const scratchFloat = new Float64Array(scratch.buffer);
/** True on little-endian hosts (all that JavaScript runs on today): the scratch is then filled in reverse. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The float64 at `at`. */
export function readFloat64(bytes: Uint8Array, at: number): number {
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) scratch[i] = bytes[at + 7 - i]!;
  else for (let i = 0; i < 8; i++) scratch[i] = bytes[at + i]!;
  return scratchFloat[0]!;
}

/** Writes `value` as a float64 at `at`. */
export function writeFloat64(bytes: Uint8Array, at: number, value: number): void {
  scratchFloat[0] = value;
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) bytes[at + i] = scratch[7 - i]!;
  else for (let i = 0; i < 8; i++) bytes[at + i] = scratch[i]!;
}

/** The uint32 at `at`. */
export function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Writes the low 32 bits of `value` at `at`. */
export function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = value >>> 16;
  bytes[at + 2] = value >>> 8;
  bytes[at + 3] = value;
}

/** The uint16 at `at`. */
export function readUint16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

/** Writes the low 16 bits of `value` at `at`. */
export function writeUint16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 8;
  bytes[at + 1] = value;
}
