/**
 * Counters (`incr` and tag generations), defined once: plain decimal integers, not envelopes,
 * so that a server's own INCRBY works on them. Stores without a native increment and the
 * engine's reading of a generation share this encoding.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const INTEGER = /^-?\d+$/;

/** A stored counter's value, or undefined when missing or anything but a safe integer. */
export function counterValue(bytes: Uint8Array | undefined): number | undefined {
  return bytes === undefined ? undefined : counterOfText(decoder.decode(bytes));
}

/** The value of a counter already read as text (a script's reply), or undefined when it is anything but a safe integer. */
export function counterOfText(text: string): number | undefined {
  const value = Number(text);
  return INTEGER.test(text) && Number.isSafeInteger(value) ? value : undefined;
}

/** Reads a stored counter; throws like Redis does when the value is not an integer. */
export function parseCounter(bytes: Uint8Array, key: string): number {
  const value = counterValue(bytes);
  if (value === undefined) throw new TypeError(`value is not an integer or out of range (key "${key}")`);
  return value;
}

/** Encodes a counter as decimal ASCII. */
export function formatCounter(value: number): Uint8Array {
  return encoder.encode(String(value));
}
