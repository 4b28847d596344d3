/**
 * The assertions the store contract makes, with no `node:assert`: the suite ships in a package
 * whose core imports no `node:` module, and runs in workerd and Deno as well as on Node and Bun.
 * Strict, like `node:assert/strict`: values compare with `Object.is`, arrays by index (a hole is
 * not an `undefined`), plain objects by their own keys.
 */

/** A failed contract assertion. */
export class ContractAssertionError extends Error {
  override name = 'AssertionError';
}

/** Fails unless `value` is truthy. */
export function ok(value: unknown, message = 'expected a truthy value'): asserts value {
  if (!value) throw new ContractAssertionError(`${message}: got ${show(value)}`);
}

/** Fails unless `actual` is `expected` (`Object.is`). */
export function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  if (!Object.is(actual, expected)) throw new ContractAssertionError(`${message ?? 'values differ'}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Fails unless `actual` and `expected` hold the same values (see the module comment). */
export function deepEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!sameValue(actual, expected)) throw new ContractAssertionError(`${message ?? 'values differ'}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Fails unless `promise` rejects. */
export async function rejects(promise: Promise<unknown>, message = 'expected the call to reject'): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch {
    return;
  }
  throw new ContractAssertionError(`${message}: it resolved ${show(outcome)}`);
}

/** Fails unless `promise` rejects with an error that `check` accepts. */
export async function rejectsWith(promise: Promise<unknown>, check: (error: unknown) => boolean, message: string): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    if (check(error)) return;
    throw new ContractAssertionError(`${message}: it rejected with ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`);
  }
  throw new ContractAssertionError(`${message}: it resolved ${show(outcome)}`);
}

/** True when two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Uint8Array) return sameBytes(a, b as Uint8Array);
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (i in a !== i in other || !sameValue(a[i], other[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** A short, readable form of a value for a failure message. */
function show(value: unknown): string {
  if (value instanceof Uint8Array) return `Uint8Array(${value.length}) [${[...value.subarray(0, 16)].join(', ')}${value.length > 16 ? ', …' : ''}]`;
  if (Array.isArray(value)) return `[${Array.from(value, (item, i) => (i in value ? show(item) : '<hole>')).join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([key, item]) => `${key}: ${show(item)}`)
      .join(', ')} }`;
  return String(value);
}
