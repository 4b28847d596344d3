import { checkGetOrSetOptions } from '../call-options.ts';
import type { BatchFactory } from '../types.ts';
import type { GetOrSetOptions } from '../types.ts';
import { type FillRequest, fillRequest } from './fill-request.ts';
import type { Lifetimes } from '../roles/lifetimes.ts';

/**
 * The per-key fill requests of one `getOrSetMany(keys, factory, options)` call, every argument
 * checked before anything is read: each key's request fills through the batch factory asked for
 * that key alone (what a grace refresh or refresh-ahead of one of them calls), and a key given
 * twice is read and filled once.
 */
export function getOrSetManyRequests<T>(
  keys: readonly string[],
  factory: BatchFactory<T>,
  options: GetOrSetOptions<T> | undefined,
  fullKey: (key: string) => string,
  lifetimes: Lifetimes,
  started: number,
): Array<FillRequest<T>> {
  if (!Array.isArray(keys)) throw new TypeError(`cachette: getOrSetMany(keys, factory) needs an array of keys, got ${typeof keys}`);
  if (typeof factory !== 'function') throw new TypeError('cachette: getOrSetMany(keys, factory) needs a factory function (missingKeys, ctx) => values');
  const unique = [...new Set(keys)];
  if (options !== undefined) checkGetOrSetOptions(options, 'getOrSetMany', unique.join(','));
  return unique.map((key) =>
    fillRequest<T>(
      key,
      fullKey(key),
      async (context) => {
        const result = await factory([key], Object.assign(context, { keys: [key] }));
        const value = result instanceof Map ? result.get(key) : (result as readonly T[])[0];
        if (result instanceof Map ? !result.has(key) : (result as readonly T[]).length !== 1) throw new TypeError(`cachette: getOrSetMany: the factory returned no value for key "${key}"`);
        return value as T;
      },
      lifetimes,
      options,
      started,
    ),
  );
}

/** The values of the unique keys' `requests`, in the order of `keys` (a key given twice gets its value twice). */
export function inKeyOrder<T>(keys: readonly string[], requests: ReadonlyArray<FillRequest<T>>, values: readonly T[]): T[] {
  if (keys.length === requests.length) return [...values];
  const byKey = new Map(requests.map((request, i) => [request.key, values[i] as T]));
  return keys.map((key) => byKey.get(key) as T);
}
