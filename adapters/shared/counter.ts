/**
 * Counters are stored as plain decimal integers (not envelopes) so a server's own INCRBY
 * works on them. Stores without a native increment share this encoding.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const INTEGER = /^-?\d+$/;

/** Reads a stored counter; throws like Redis does when the value is not an integer. */
export function parseCounter(bytes: Uint8Array, key: string): number {
  const text = decoder.decode(bytes);
  const value = Number(text);
  if (!INTEGER.test(text) || !Number.isSafeInteger(value)) throw new TypeError(`value is not an integer or out of range (key "${key}")`);
  return value;
}

/** Encodes a counter as decimal ASCII. */
export function formatCounter(value: number): Uint8Array {
  return encoder.encode(String(value));
}
