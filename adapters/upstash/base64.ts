/**
 * Base64 on every runtime without importing `node:*`: the native `Uint8Array` methods where
 * the engine has them (Bun, Deno, recent V8/workerd), Node's global Buffer where it exists
 * (Node 20 lacks the native methods; Buffer is ~15x faster than atob/btoa on large values),
 * and atob/btoa everywhere else.
 */

interface NativeBase64 {
  toBase64?: (this: Uint8Array) => string;
}
interface NativeBase64Static {
  fromBase64?: (text: string) => Uint8Array;
}
interface NodeBufferLike {
  from(data: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64'): string };
  from(text: string, encoding: 'base64'): Uint8Array;
}

const nativeEncode = (Uint8Array.prototype as NativeBase64).toBase64;
const nativeDecode = (Uint8Array as NativeBase64Static).fromBase64;
const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;
// String.fromCharCode.apply takes its arguments on the stack: feed it bounded slices.
const CHUNK = 0x8000;

/** Standard (padded) base64 of `bytes`. */
export const toBase64: (bytes: Uint8Array) => string = nativeEncode
  ? (bytes) => nativeEncode.call(bytes)
  : NodeBuffer
    ? (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
    : (bytes) => {
        let binary = '';
        for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
        return btoa(binary);
      };

/** Bytes of standard base64 text; throws on text that is not base64. */
export const fromBase64: (text: string) => Uint8Array = nativeDecode
  ? (text) => nativeDecode(text)
  : NodeBuffer
    ? (text) => {
        const buffer = NodeBuffer.from(text, 'base64');
        // Buffer silently skips characters outside the alphabet, so text that is not base64
        // decodes to fewer bytes than its length promises: refuse it, as atob would.
        const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
        if (text.length % 4 !== 0 || buffer.byteLength !== (text.length / 4) * 3 - padding) throw new SyntaxError('invalid base64');
        // A plain view, so every runtime hands out the same type.
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      }
    : (text) => {
        const binary = atob(text);
        const out = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
        return out;
      };
