import type { TagGeneration } from '../../codec/envelope.ts';
import type { Reads } from '../roles/reads.ts';
import { NO_GENERATIONS, type EntryWrite, type Writes } from '../roles/writes.ts';
import type { ResolvedOptions } from '../options.ts';
import { jittered, type Lifetimes } from '../roles/lifetimes.ts';
import type { TagSnapshot } from '../tiers/tier.ts';
import type { Ran } from './factory-run.ts';
import type { FillRequest } from './fill-request.ts';

/** Takes one entry's write instead of sending it (a batch gathers its writes into one store call). */
export type Gather = (write: EntryWrite) => Promise<unknown>;

/** A store write a fill started: `landed` settles (never rejects) once it has; `freshFor` is the fresh time it stores (its jitter drawn). */
export interface StartedWrite {
  readonly landed: Promise<unknown>;
  readonly freshFor: number;
}

/**
 * Starts storing what a run returned, as its context asked: nothing after `skip()` or when
 * `generations` is undefined (the tags' state is unknown or fenced), else with the context's
 * lifetimes and tags, through `writes` (or `gather`). Tags the factory named that the call did
 * not have their generations read now, and that entry is written alone (a promise then; throws,
 * like the write, when the value cannot be encoded).
 */
export function startWrite<T>(
  reads: Reads,
  writes: Writes,
  request: FillRequest<T>,
  ran: Ran<T>,
  generations: readonly TagGeneration[] | undefined,
  snapshot: TagSnapshot | undefined,
  gather?: Gather,
): StartedWrite | undefined | Promise<StartedWrite | undefined> {
  const { context, value } = ran;
  if (generations === undefined || context.skipped) return undefined;
  const lifetimes = jittered(storedLifetimes(writes.options, request, ran));
  const { key, full, version } = request;
  // Δ is kept only where a reader may use it: xfetch on for this call (or the cache), Δ measurable.
  const computeMs = (request.xfetch ?? writes.options.xfetch ?? 0) > 0 && ran.computeMs > 0 ? ran.computeMs : undefined;
  const tags = context.tags;
  if (tags === undefined) return started({ key, full, value, lifetimes, generations, version, computeMs }, writes, gather);
  const known = (snapshot?.generations ?? NO_GENERATIONS).filter((recorded) => tags.includes(recorded.tag));
  const added = tags.filter((tag) => !known.some((recorded) => recorded.tag === tag));
  if (added.length === 0) return started({ key, full, value, lifetimes, generations: known, version, computeMs }, writes, gather);
  // Written alone, once the added tags' state is known (a batch has sent its own writes by then).
  return reads.snapshot(added).then((later) => {
    if (later === undefined) return undefined;
    if (later.fenced.length > 0) {
      writes.fenced(key, later.fenced);
      return undefined;
    }
    return { landed: writes.write({ key, full, value, lifetimes, generations: [...known, ...later.generations], version, computeMs }), freshFor: lifetimes.freshFor };
  });
}

/**
 * What a run's value is stored for: what its factory set (`ctx.setOptions`), else for a value
 * the cache's `negative` predicate matches, the call's lifetimes with `negativeTtl` as the ttl
 * (when one is set), else the call's.
 */
function storedLifetimes<T>(options: Pick<ResolvedOptions, 'negativeTtlMs' | 'negative'>, request: FillRequest<T>, ran: Ran<T>): Lifetimes {
  if (ran.context.lifetimes) return ran.context.lifetimes;
  const negativeTtlMs = request.negativeTtlMs ?? options.negativeTtlMs;
  if (negativeTtlMs === undefined || options.negative(ran.value) !== true) return request.lifetimes;
  return { ...request.lifetimes, freshFor: negativeTtlMs };
}

/** The write of `write`, sent at once or gathered. */
function started(write: EntryWrite, writes: Writes, gather: Gather | undefined): StartedWrite {
  return { landed: gather ? gather(write) : writes.write(write), freshFor: write.lifetimes.freshFor };
}
