import type { TagGeneration } from '../../codec/envelope.ts';
import type { Reads } from '../roles/reads.ts';
import { NO_GENERATIONS, type EntryWrite, type Writes } from '../roles/writes.ts';
import type { TagSnapshot } from '../tiers/tier.ts';
import type { Ran } from './factory-run.ts';
import type { FillRequest } from './fill-request.ts';

/** Takes one entry's write instead of sending it (a batch gathers its writes into one store call). */
export type Gather = (write: EntryWrite) => Promise<unknown>;

/** A store write a fill started: `landed` settles (never rejects) once it has. */
export interface StartedWrite {
  readonly landed: Promise<unknown>;
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
  const lifetimes = context.lifetimes ?? request.lifetimes;
  const { key, full, version } = request;
  const tags = context.tags;
  if (tags === undefined) return started({ key, full, value, lifetimes, generations, version }, writes, gather);
  const known = (snapshot?.generations ?? NO_GENERATIONS).filter((recorded) => tags.includes(recorded.tag));
  const added = tags.filter((tag) => !known.some((recorded) => recorded.tag === tag));
  if (added.length === 0) return started({ key, full, value, lifetimes, generations: known, version }, writes, gather);
  // Written alone, once the added tags' state is known (a batch has sent its own writes by then).
  return reads.snapshot(added).then((later) => {
    if (later === undefined) return undefined;
    if (later.fenced.length > 0) {
      writes.fenced(key, later.fenced);
      return undefined;
    }
    return { landed: writes.write({ key, full, value, lifetimes, generations: [...known, ...later.generations], version }) };
  });
}

/** The write of `write`, sent at once or gathered. */
function started(write: EntryWrite, writes: Writes, gather: Gather | undefined): StartedWrite {
  return { landed: gather ? gather(write) : writes.write(write) };
}
