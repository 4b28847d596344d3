import type { TagGeneration } from '../../codec/envelope.ts';
import type { EngineContext } from '../roles/context.ts';
import type { Reads } from '../roles/reads.ts';
import { NO_GENERATIONS, type EntryWrite, type Writes } from '../roles/writes.ts';
import type { TagSnapshot } from '../tiers/tier.ts';
import type { BatchFactory, BatchResult } from '../types.ts';
import type { FillContext } from './factory-context.ts';
import { runFactory } from './factory-run.ts';
import type { FillRequest } from './fill-request.ts';
import { UNKNOWN_STATE, type Fill } from './in-flight.ts';
import { startWrite, type Gather } from './start-write.ts';

/** One missing key of a batch: its request, its registered fill, the tags' state it was read with, and its caller's promise. */
interface BatchEntry<T> {
  readonly request: FillRequest<T>;
  readonly fill: Fill;
  readonly snapshot: TagSnapshot | undefined;
  readonly settle: { resolve(value: T): void; reject(error: unknown): void };
}

/** The missing keys of one `getOrSetMany` call, gathered before its factory runs once for all of them. */
export class Batch<T> {
  readonly entries: Array<BatchEntry<T>> = [];

  constructor(readonly factory: BatchFactory<T>) {}

  get size(): number {
    return this.entries.length;
  }

  /** Adds a missing key; its promise settles once the factory has run and its write has started. */
  add(request: FillRequest<T>, fill: Fill, snapshot: TagSnapshot | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.entries.push({ request, fill, snapshot, settle: { resolve, reject } });
    });
  }

  /** Runs the factory once for the batch's keys, and stores each value as its key's fill would, every write in one store call. */
  fill(ctx: EngineContext, reads: Reads, writes: Writes): void {
    const { entries } = this;
    const keys = entries.map((entry) => entry.request.key);
    const first = entries[0]!.request;
    const run = runFactory<BatchResult<T>>(ctx, { ...first, factory: (context) => this.factory(keys, Object.assign(context, { keys })) }, undefined, false);
    run.then(
      (ran) => {
        let values: T[];
        try {
          values = valuesInOrder(ran.value, keys);
        } catch (error) {
          for (const entry of entries) entry.settle.reject(error);
          return;
        }
        // Every key's write is gathered, then sent in one store call.
        const gathered: EntryWrite[] = [];
        let sendAll!: (landed: Promise<unknown>) => void;
        const sent = new Promise<Promise<unknown>>((resolve) => (sendAll = resolve));
        const gather: Gather = (write) => {
          gathered.push(write);
          return sent.then((landed) => landed);
        };
        entries.forEach((entry, i) => {
          const { request, fill, snapshot } = entry;
          const value = values[i]!;
          fill.asOf = snapshot ?? UNKNOWN_STATE;
          let generations: readonly TagGeneration[] | undefined = NO_GENERATIONS;
          if (request.tags.length > 0) {
            generations = snapshot !== undefined && snapshot.fenced.length === 0 ? snapshot.generations : undefined;
            if (snapshot !== undefined && snapshot.fenced.length > 0) writes.fenced(request.key, snapshot.fenced);
          }
          try {
            const started = startWrite(reads, writes, request, { value, context: ran.context as unknown as FillContext<T>, computeMs: ran.computeMs }, generations, snapshot, gather);
            Promise.resolve(started).then((write) => {
              if (write) {
                fill.written = write.landed;
                fill.freshUntil = ctx.now() + write.freshFor;
                ctx.track(write.landed, request.waitUntil);
              }
              entry.settle.resolve(value);
            }, entry.settle.reject);
          } catch (error) {
            entry.settle.reject(error);
          }
        });
        let landed: Promise<unknown>;
        try {
          landed = gathered.length > 0 ? writes.writeMany(gathered) : Promise.resolve();
        } catch (error) {
          // A value that cannot be encoded: nothing was sent; the callers get the TypeError.
          for (const entry of entries) entry.settle.reject(error);
          landed = Promise.resolve();
        }
        sendAll(landed);
      },
      (error: unknown) => {
        for (const entry of entries) entry.settle.reject(error);
      },
    );
  }
}

/** The values a batch factory returned, in the order of `keys`; a TypeError when one is missing. */
function valuesInOrder<T>(result: BatchResult<T>, keys: readonly string[]): T[] {
  if (result instanceof Map) {
    return keys.map((key) => {
      if (!result.has(key)) throw new TypeError(`cachette: getOrSetMany: the factory's Map has no value for key "${key}"`);
      return result.get(key) as T;
    });
  }
  if (!Array.isArray(result) || result.length !== keys.length) {
    throw new TypeError(
      `cachette: getOrSetMany: the factory must return ${keys.length} values in the order of the keys it was given (or a Map), got ${Array.isArray(result) ? `${result.length} values` : typeof result}`,
    );
  }
  return [...result];
}
