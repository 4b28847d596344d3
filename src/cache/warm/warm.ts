import { callOptionsCheck } from '../../util/known-options.ts';
import { GET_OR_SET_OPTIONS, ttlHint } from '../call-options.ts';
import type { CacheEventMap, CacheEvents } from '../events.ts';
import type { Factory, GetOrSetOptions, WarmFactory, WarmOptions, WarmReport } from '../types.ts';

/** How one key of `cache.warm` ended (see the `warm` event). */
export type WarmOutcome = CacheEventMap['warm']['outcome'];

/** What warming needs of the cache: its own `getOrSet` and `getMany`, so that it goes through the fill path (fill leases, coalescing) and the L1 tier like any caller. */
export interface WarmTarget {
  getOrSet<T>(key: string, factory: Factory<T>, options?: GetOrSetOptions<T>): Promise<T>;
  getMany<T>(keys: readonly string[]): Promise<Array<T | undefined>>;
}

/** Keys read by one `getMany` when warming without a factory: one round trip each, bounded in size. */
export const WARM_READ_BATCH = 100;

const DEFAULT_CONCURRENCY = 8;

/** `warm`: what `getOrSet` takes, and `concurrency`. */
const checkWarmOptions = callOptionsCheck([...GET_OR_SET_OPTIONS, 'concurrency'] satisfies ReadonlyArray<keyof WarmOptions>, ttlHint);

/**
 * Checks `cache.warm`'s factory and options (its keys are checked by the cache) and returns
 * its concurrency, or throws a TypeError or RangeError naming what is wrong.
 */
export function checkWarm(factory: unknown, options: WarmOptions<unknown> | undefined): number {
  if (factory !== undefined && typeof factory !== 'function')
    throw new TypeError(`cachette: warm() takes a factory function (key, ctx) => value, or none to read stored values into the L1; got ${typeof factory}`);
  if (options !== undefined) checkWarmOptions(options, 'warm', 'keys');
  const concurrency = options?.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`cachette: warm() concurrency must be an integer of at least 1, got ${concurrency}`);
  return concurrency;
}

/**
 * Warms `keys` (docs/warming.md): with a factory, each key goes through `getOrSet`, so a key
 * already stored is left alone and, where the store holds fill leases, a fleet warming the same
 * keys computes each once; without one, stored values are read with `getMany` in batches, which
 * keeps copies in the L1 tier. At most `concurrency` keys (or batches) are in flight; a failure
 * is reported for its key and the others go on. Every key settled emits a `warm` event.
 */
export async function warm<T>(
  target: WarmTarget,
  events: CacheEvents,
  keys: readonly string[],
  factory: WarmFactory<T> | undefined,
  options: WarmOptions<T> | undefined,
  concurrency: number,
): Promise<WarmReport> {
  const total = keys.length;
  const counts = { filled: 0, present: 0, missing: 0 };
  const failed: Array<{ key: string; error: unknown }> = [];
  let done = 0;
  const settled = (key: string, outcome: WarmOutcome, error?: unknown) => {
    done++;
    if (outcome === 'failed') failed.push({ key, error });
    else counts[outcome]++;
    events.emit('warm', outcome === 'failed' ? { key, outcome, done, total, error } : { key, outcome, done, total });
  };
  const { concurrency: _, ...getOrSetOptions } = options ?? {};
  const fill = async (key: string) => {
    let ran = false;
    try {
      await target.getOrSet<T>(
        key,
        (context) => {
          ran = true;
          return factory!(key, context);
        },
        getOrSetOptions,
      );
      settled(key, ran ? 'filled' : 'present');
    } catch (error) {
      settled(key, 'failed', error);
    }
  };
  const read = async (batch: readonly string[]) => {
    let values: unknown[];
    try {
      // A store failure is a miss here as in every read (a hole), unless the cache is strict: then it rejects.
      values = await target.getMany<unknown>(batch);
    } catch (error) {
      for (const key of batch) settled(key, 'failed', error);
      return;
    }
    for (let at = 0; at < batch.length; at++) settled(batch[at]!, values[at] === undefined ? 'missing' : 'present');
  };
  const units: Array<() => Promise<void>> = factory ? keys.map((key) => () => fill(key)) : batches(keys).map((batch) => () => read(batch));
  let next = 0;
  const worker = async () => {
    while (next < units.length) await units[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, worker));
  return { ...counts, failed };
}

function batches(keys: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let at = 0; at < keys.length; at += WARM_READ_BATCH) out.push(keys.slice(at, at + WARM_READ_BATCH));
  return out;
}
