/**
 * Small byte buffers carved out of shared slabs. A fresh `new Uint8Array(n)` above 64 bytes
 * costs V8 an off-heap allocation (~0.6 µs on Node 20, more than the whole rest of an entry's
 * encoding); a view into a slab costs ~30 ns. The trade-off is the one Node's own Buffer pool
 * makes: a view that lives on keeps its slab (8 KiB) alive, so only small buffers are pooled.
 * Slabs are never reused, so a view never shows bytes of an earlier one.
 */
const SLAB_BYTES = 8 * 1024;
const MAX_POOLED = SLAB_BYTES >>> 1;

let slab = new ArrayBuffer(SLAB_BYTES);
let offset = 0;

/** A zero-filled Uint8Array of `size` bytes (pooled when small). */
export function allocBytes(size: number): Uint8Array {
  if (size > MAX_POOLED) return new Uint8Array(size);
  if (offset + size > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    offset = 0;
  }
  const out = new Uint8Array(slab, offset, size);
  offset += (size + 7) & ~7; // keep views 8-byte aligned
  return out;
}

/** A copy of `bytes` that shares nothing with it. */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const out = allocBytes(bytes.length);
  out.set(bytes);
  return out;
}

const utf8Encoder = new TextEncoder();

/**
 * `text` as UTF-8 bytes. Short texts are encoded straight into a slab (`encodeInto` needs no
 * allocation of its own, which on Node costs more than the encoding); long ones get their own
 * buffer.
 */
export function utf8Bytes(text: string): Uint8Array {
  // UTF-8 needs at most 3 bytes per UTF-16 code unit.
  const room = text.length * 3;
  if (room > MAX_POOLED) return utf8Encoder.encode(text);
  if (offset + room > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    offset = 0;
  }
  const written = utf8Encoder.encodeInto(text, new Uint8Array(slab, offset, room)).written;
  const out = new Uint8Array(slab, offset, written);
  offset += (written + 7) & ~7;
  return out;
}
