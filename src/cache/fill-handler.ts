import type { TagGeneration } from '../codec/envelope.ts';
import { StoreBusyError } from '../store/errors.ts';
import type { WaitUntil } from './background.ts';
import type { CacheEvents, CacheStats } from './events.ts';
import { FactoryTimeoutError } from './errors.ts';
import { FillContext } from './fill/factory-context.ts';
import type { FillRequest } from './fill/fill-request.ts';
import type { StandardResult } from './fill/schema.ts';
import type { BatchFactory, BatchResult } from './types.ts';

export type { BatchFactory } from './types.ts';
import type { Lifetimes } from './fill/lifetimes.ts';
import { backoff, type FillLease, type FillLeases } from './leases/fill-leases.ts';
import type { TagSnapshot } from './tiers/tier.ts';

/** A read as `getOrSet` sees it: fresh, stale (inside grace), or nothing usable. */
export type Lookup<T> =
  /** With the entry's write time and freshness, which say when a refresh-ahead is due. */
  | { state: 'fresh'; value: T; createdAt: number; freshUntil: number; version?: string | number }
  | { state: 'stale'; value: T; version?: string | number }
  /** Past grace, still kept by the store (a stale-if-error window was asked for): a miss, unless the source fails. */
  | { state: 'expired'; value: T; freshUntil: number; version?: string | number }
  | undefined;

/** A read with the state of the tags the caller named (undefined when none were, or the read failed). */
export interface TaggedLookup<T> {
  readonly found: Lookup<T>;
  /** May be built when first asked for: read it only when it is needed (a miss, a stale read). */
  readonly snapshot: TagSnapshot | undefined;
  /** The store failed: the fill takes no lease (it would cost a second timeout) and computes at once. */
  failed?: boolean;
}

export type { Lifetimes } from './fill/lifetimes.ts';

export type { FillRequest } from './fill/fill-request.ts';

/** One entry of {@link FillHost.writeMany}: what {@link FillHost.write} takes. */
export interface EntryWrite {
  readonly key: string;
  readonly full: string;
  readonly value: unknown;
  readonly lifetimes: Lifetimes;
  readonly generations: readonly TagGeneration[];
  readonly version: string | number | undefined;
}

/** Starts one entry's write; what {@link FillHandler} uses unless a batch gathers its writes. */
type Writer = (write: EntryWrite) => Promise<unknown>;

/** What the fill handler needs from the engine's front. */
export interface FillHost {
  readonly events: CacheEvents;
  readonly counters: CacheStats;
  readonly factoryTimeoutMs: number;
  /** The cache's clock (milliseconds since the epoch). */
  now(): number;
  /** `refreshAhead` of calls that set none (undefined: none). */
  readonly refreshAhead: number | undefined;
  /** `graceBackoff` of calls that set none, in ms (0: retried on every call). */
  readonly graceBackoffMs: number;
  /** Aborted when the cache closes: every running factory's `ctx.signal` follows it. */
  readonly closing: AbortSignal;
  /** How long a fill waits for another process's fill. */
  readonly lockTimeoutMs: number;
  /** Fill leases across processes, when the store can hold them. */
  readonly leases: FillLeases | undefined;
  /** Reads and decodes `full` and the state of `tags`; counts nothing; a store failure is a miss without snapshot. */
  lookup<T>(key: string, full: string, tags: readonly string[]): Promise<TaggedLookup<T>>;
  /**
   * {@link lookup} without a promise, offered only when the store answers synchronously (a
   * failure still becomes the miss; in strict mode it throws). It throws a
   * {@link StoreBusyError} when the store could answer only by waiting: call {@link lookup}.
   */
  lookupNow?<T>(key: string, full: string, tags: readonly string[]): TaggedLookup<T>;
  /** The current state of `tags` alone, or undefined when the store failed. */
  snapshot(tags: readonly string[]): Promise<TagSnapshot | undefined>;
  /** Counts and reports a fill or a set that found a write lease on these tags. */
  wasFenced(key: string, tags: readonly string[]): void;
  /** Counts and reports a hit or a miss. */
  hit(key: string, started: number): void;
  miss(key: string, started: number): void;
  /**
   * Encodes `value` with `generations` (throwing a TypeError when it cannot be encoded) and
   * starts its write; the returned promise settles when the write has (it never rejects).
   */
  write(key: string, full: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[], version?: string | number): Promise<unknown>;
  /** {@link lookup} of untagged keys, in one store call. */
  lookupMany<T>(keys: readonly string[], fulls: readonly string[]): Promise<Array<TaggedLookup<T>>>;
  /** {@link write} of several entries in one store call (an entry that cannot be encoded throws before any is sent). */
  writeMany(writes: readonly EntryWrite[]): Promise<unknown>;
  /** Keeps `work` in the set that close() waits for, and hands it to a `waitUntil` (the call's first). */
  track(work: Promise<unknown>, waitUntil?: WaitUntil): void;
}

/**
 * `getOrSet`: the read, then on a miss one factory run per key however many callers wait, in
 * this process (one promise per key) and across processes (a fill lease, when the store can
 * hold one), and inside the grace window the stale value while exactly one background refresh
 * runs. The write after a fill is not awaited by the callers: a store that hangs costs them one
 * timeout (the read), not two. The fill stays registered until its write has landed, so that a
 * call arriving in between joins it instead of running the factory again.
 *
 * With tags, the generations read with the entry (before any factory runs) are what the new
 * entry records. When a write lease is held on one of them, nothing computed now may be stored:
 * the fill reads the source and serves the value without storing it.
 */
export class FillHandler {
  readonly #fills = new Map<string, Fill>();
  readonly #refreshes = new Map<string, Promise<unknown>>();
  /** Keys whose source failed, and until when (the cache's clock) their factory is not retried (`graceBackoff`). */
  readonly #backoffs = new Map<string, number>();

  constructor(private readonly host: FillHost) {}

  getOrSet<T>(request: FillRequest<T>): Promise<T> {
    const { host } = this;
    // Untagged: join a fill in flight at once. Tagged: only after reading the tags' state, which
    // tells whether a write committed since that fill's factory began (see joinable).
    const filling = request.tags.length === 0 ? this.#fills.get(request.full) : undefined;
    if (filling && this.#current(filling)) return this.#join(request.key, filling.promise as Promise<T>);
    if (host.lookupNow) {
      // A store that answers synchronously: a hit costs no promise chain at all.
      try {
        return Promise.resolve(this.#answer(request, host.lookupNow<T>(request.key, request.full, request.tags)));
      } catch (error) {
        // A store too busy to answer now: the read below waits for it.
        if (!(error instanceof StoreBusyError)) return Promise.reject(error);
      }
    }
    // A then-chain rather than async/await: a hit, the common case, costs no extra ticks.
    return host.lookup<T>(request.key, request.full, request.tags).then((found) => this.#answer(request, found));
  }

  /** What a call does with what its read found, once the value passed the call's version and schema. */
  #answer<T>(request: FillRequest<T>, lookup: TaggedLookup<T>): T | Promise<T> {
    const checked = this.#checked(request, lookup, true);
    return checked instanceof Promise ? checked.then((accepted) => this.#serve(request, accepted)) : this.#serve(request, checked);
  }

  /**
   * `lookup` as the call may use it: a value stored under another `version`, or refused by its
   * `schema`, becomes nothing found (counted and reported when `count`: a later look at the
   * same entry is not counted again); what the schema returns replaces the stored value.
   */
  #checked<T>(request: FillRequest<T>, lookup: TaggedLookup<T>, count: boolean): TaggedLookup<T> | Promise<TaggedLookup<T>> {
    const { found } = lookup;
    const { schema, version } = request;
    if (found === undefined || (schema === undefined && version === undefined)) return lookup;
    if (version !== undefined && found.version !== version) {
      if (count) this.#invalid(request.key, 'version', undefined);
      return withFound(lookup, undefined);
    }
    if (schema === undefined) return lookup;
    const use = (result: StandardResult<unknown>): TaggedLookup<T> => {
      if (!result.issues) return withFound(lookup, { ...found, value: result.value as T });
      if (count) this.#invalid(request.key, 'schema', result.issues);
      return withFound(lookup, undefined);
    };
    const validated = schema['~standard'].validate(found.value);
    return validated instanceof Promise ? validated.then(use) : use(validated);
  }

  /** Counts and reports a stored value refused by the call's version or schema: a miss, refilled. */
  #invalid(key: string, reason: 'version' | 'schema', issues: ReadonlyArray<{ readonly message: string }> | undefined): void {
    this.host.counters.invalid++;
    if (this.host.events.listens('invalid')) this.host.events.emit('invalid', { key, reason, issues: issues ?? [] });
  }

  /**
   * `getOrSetMany`: every key read in one tick (the batcher folds the reads into one round
   * trip), each answered as `getOrSet` would (fresh, stale with a refresh of its own, joined to
   * a fill in flight), and the misses filled by one factory call, whose values are written in
   * one tick (one round trip). Each missing key is registered as a fill of its own, so
   * concurrent `getOrSet` and `getOrSetMany` callers join it. No fill lease is taken: leases
   * are per key, and waiting for another process's fill of some keys would hold up the rest.
   */
  async getOrSetMany<T>(requests: ReadonlyArray<FillRequest<T>>, factory: BatchFactory<T>): Promise<T[]> {
    const { host } = this;
    const batch = new Batch<T>(factory);
    // Untagged keys being filled are joined at once (their fill may be gone once the reads are in).
    const joined = requests.map((request) => {
      const filling = request.tags.length === 0 ? this.#fills.get(request.full) : undefined;
      return filling && this.#current(filling) ? (filling.promise as Promise<T>) : undefined;
    });
    const toRead = requests.filter((_, i) => joined[i] === undefined);
    // One store call for the reads: untagged keys in one getMany; tagged ones each need their
    // tags' state, and their reads are folded by the batcher.
    const untagged = toRead.length > 0 && toRead[0]!.tags.length === 0;
    const many = untagged
      ? host.lookupMany<T>(
          toRead.map((request) => request.key),
          toRead.map((request) => request.full),
        )
      : undefined;
    let next = 0;
    const reads = requests.map((request) => {
      if (toRead[next] !== request) return undefined;
      const at = next++;
      return many ? many.then((found) => found[at]!) : host.lookup<T>(request.key, request.full, request.tags);
    });
    const lookups = await Promise.all(reads.map((read, i) => read?.then((lookup) => this.#checked(requests[i]!, lookup, true))));
    const answers = requests.map((request, i) => {
      const lookup = lookups[i];
      return lookup === undefined ? this.#join(request.key, joined[i]!) : this.#serve(request, lookup, batch);
    });
    if (batch.size > 0) this.#fillBatch(batch);
    return Promise.all(answers);
  }

  /** Runs a batch's factory once for its keys, and stores each value as its key's fill would. */
  #fillBatch<T>(batch: Batch<T>): void {
    const { entries } = batch;
    const keys = entries.map((entry) => entry.request.key);
    const first = entries[0]!.request;
    const run = this.#run<BatchResult<T>>({ ...first, factory: (context) => batch.factory(keys, Object.assign(context, { keys })) }, undefined, false);
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
        const gather: Writer = (write) => {
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
            if (snapshot !== undefined && snapshot.fenced.length > 0) this.host.wasFenced(request.key, snapshot.fenced);
          }
          try {
            const started = this.#startWrite(request, { value, context: ran.context as unknown as FillContext<T> }, generations, snapshot, gather);
            Promise.resolve(started).then((write) => {
              if (write) {
                fill.written = write.landed;
                fill.freshUntil = this.host.now() + (ran.context.lifetimes ?? request.lifetimes).freshFor;
                this.#keep(request, write.landed);
              }
              entry.settle.resolve(value);
            }, entry.settle.reject);
          } catch (error) {
            entry.settle.reject(error);
          }
        });
        let landed: Promise<unknown>;
        try {
          landed = gathered.length > 0 ? this.host.writeMany(gathered) : Promise.resolve();
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

  /** Serves what the read found, serves it stale and refreshes, joins a fill or fills (alone, or in `batch`). */
  #serve<T>(request: FillRequest<T>, lookup: TaggedLookup<T>, batch?: Batch<T>): T | Promise<T> {
    const { host } = this;
    const { found } = lookup;
    if (found?.state === 'fresh') {
      host.hit(request.key, request.started);
      // Refresh-ahead: far enough through its ttl, a hot entry is refreshed before it turns stale.
      const refreshAhead = request.refreshAhead ?? host.refreshAhead;
      if (refreshAhead !== undefined && host.now() >= found.createdAt + refreshAhead * (found.freshUntil - found.createdAt) && !this.#backingOff(request)) {
        this.#refresh(request, lookup.snapshot, found.value);
      }
      return found.value;
    }
    if (found?.state === 'stale') {
      if (this.#backingOff(request)) return this.#servedOnError(request.key, found.value, undefined);
      host.counters.staleServed++;
      host.events.emit('stale', { key: request.key });
      this.#refresh(request, lookup.snapshot, found.value);
      return found.value;
    }
    // Past grace, inside the call's stale-if-error window: kept for the case the source fails.
    const kept = found?.state === 'expired' && host.now() < found.freshUntil + (request.lifetimes.errorFor ?? 0) ? found : undefined;
    if (kept && this.#backingOff(request)) return this.#servedOnError(request.key, kept.value, undefined);
    // A hit needs no snapshot of the tags: it is taken only here (a tier may build it on demand).
    const { snapshot } = lookup;
    // Another caller may have started the fill while this one was reading.
    const running = this.#fills.get(request.full);
    if (running && this.#current(running) && joinable(running, snapshot)) return this.#join(request.key, running.promise as Promise<T>);
    host.miss(request.key, request.started);
    // Superseding an outdated fill of this process: its lease is probably the one held, so
    // waiting for it would only delay this call; generations keep the result correct.
    return this.#fill(request, snapshot, lookup.failed === true, running !== undefined, kept, batch);
  }

  #fill<T>(request: FillRequest<T>, snapshot: TagSnapshot | undefined, storeFailed: boolean, superseding: boolean, kept: { value: T } | undefined, batch?: Batch<T>): Promise<T> {
    const fill: Fill = { promise: Promise.resolve(), asOf: undefined, written: undefined, freshUntil: undefined, kept };
    // A store that just failed the read gets no lease request (one call, one timeout at most):
    // the value is computed at once and its write goes out in the background as usual.
    const filled = batch
      ? batch.add(request, fill, snapshot)
      : storeFailed
        ? this.#runAndStore(request, fill, { generations: request.tags.length === 0 ? NO_GENERATIONS : undefined, lease: undefined, snapshot: undefined })
        : this.#obtain(request, fill, snapshot, superseding ? undefined : this.host.leases);
    // The source failed: every waiter gets the kept value when there is one (stale-if-error).
    const value = filled.then(
      (result) => {
        this.#backoffs.delete(request.full);
        return result;
      },
      (error: unknown) => {
        this.#failed(request);
        if (kept === undefined) throw error;
        return this.#servedOnError(request.key, kept.value, error);
      },
    );
    fill.promise = value;
    const { full } = request;
    this.#fills.set(full, fill);
    const release = () => {
      if (this.#fills.get(full) === fill) this.#fills.delete(full);
    };
    // Joinable until its write has landed, so that a caller arriving meanwhile does not compute
    // again; on a store that reads synchronously a read sees every write issued before it, so a
    // settled fill goes at once (before its own caller resumes, which then finds the entry).
    value.then(() => (this.host.lookupNow || fill.written === undefined ? release() : fill.written.then(release)), release);
    return value;
  }

  /** True while the key's source failed less than `graceBackoff` ago: its factory is not retried yet. */
  #backingOff(request: Pick<FillRequest<unknown>, 'full'>): boolean {
    const until = this.#backoffs.get(request.full);
    if (until === undefined) return false;
    if (this.host.now() < until) return true;
    this.#backoffs.delete(request.full);
    return false;
  }

  /** Notes a failure of the key's source, for `graceBackoff`. */
  #failed(request: Pick<FillRequest<unknown>, 'full' | 'graceBackoffMs'>): void {
    const backoffMs = request.graceBackoffMs ?? this.host.graceBackoffMs;
    if (!(backoffMs > 0)) return;
    // Bounded: the oldest note goes first (a key failing again is noted anew, at the end).
    this.#backoffs.delete(request.full);
    if (this.#backoffs.size >= MAX_BACKOFFS) this.#backoffs.delete(this.#backoffs.keys().next().value!);
    this.#backoffs.set(request.full, this.host.now() + backoffMs);
  }

  /** Serves a stale or kept value because the source failed (`error`) or failed recently (undefined: backing off). */
  #servedOnError<T>(key: string, value: T, error: unknown): T {
    this.host.counters.staleOnError++;
    if (this.host.events.listens('staleOnError')) this.host.events.emit('staleOnError', { key, error, backoff: error === undefined });
    return value;
  }

  /** The value for a miss: from the source during a write in progress, else filled under a lease or taken from another process's fill. */
  async #obtain<T>(request: FillRequest<T>, fill: Fill, snapshot: TagSnapshot | undefined, leases: FillLeases | undefined): Promise<T> {
    const { host } = this;
    const { key, full, tags } = request;
    const deadline = performance.now() + host.lockTimeoutMs;
    let snap = snapshot;
    if (tags.length > 0 && snap === undefined) snap = await host.snapshot(tags);
    for (let attempt = 0; ; attempt++) {
      // Tags whose state is unknown (the store failed) cannot be recorded: serve, do not store.
      const storable = tags.length === 0 || (snap !== undefined && snap.fenced.length === 0);
      if (snap !== undefined && snap.fenced.length > 0) {
        // A write is in progress: the source is read now and the value served, not stored.
        // Waiting for the commit instead would share one fill, but under frequent writes every
        // reader would queue behind them (bench/race measured it: reads/s fell tenfold).
        host.wasFenced(key, snap.fenced);
        return this.#runAndStore(request, fill, { generations: undefined, lease: undefined, snapshot: snap });
      } else if (leases && storable) {
        const lease = await leases.acquire(key);
        if (lease !== 'held') {
          const owned = lease === 'unavailable' ? undefined : lease;
          // The lease may be free because its holder has just stored the value (it releases
          // once its write lands, possibly between our read and our lease request): one more
          // look before computing it again. A round trip on the miss path only.
          if (owned) {
            const latest = await this.#checked(request, await host.lookup<T>(key, full, tags), false);
            if (latest.found?.state === 'fresh') {
              this.#keep(request, owned.release());
              this.#remoteJoin(key);
              return latest.found.value;
            }
            if (tags.length > 0 && (latest.snapshot === undefined || latest.snapshot.fenced.length > 0)) {
              this.#keep(request, owned.release());
              snap = latest.snapshot;
              continue;
            }
            snap = latest.snapshot ?? snap;
          }
          return this.#runAndStore(request, fill, { generations: snap?.generations ?? NO_GENERATIONS, lease: owned, snapshot: snap });
        }
        if (attempt === 0) host.counters.leaseWaits++;
        if (performance.now() >= deadline) return this.#runAndStore(request, fill, { generations: snap?.generations ?? NO_GENERATIONS, lease: undefined, snapshot: snap });
      } else {
        return this.#runAndStore(request, fill, { generations: storable ? (snap?.generations ?? NO_GENERATIONS) : undefined, lease: undefined, snapshot: snap });
      }
      // Another process's fill is at work: look again shortly.
      await backoff(attempt);
      const again = await this.#checked(request, await host.lookup<T>(key, full, tags), false);
      if (again.found?.state === 'fresh') {
        this.#remoteJoin(key);
        return again.found.value;
      }
      // A generation moved since the holder's fill began: its value will be outdated, so this
      // call stops waiting and fills for itself (under frequent writes, waiting would chain).
      if (snap !== undefined && again.snapshot !== undefined && !sameGenerations(snap, again.snapshot)) leases = undefined;
      snap = again.snapshot ?? (tags.length > 0 ? undefined : snap);
    }
  }

  /**
   * Runs the factory and, when `how.generations` is given, stores the value recording them; a
   * lease is released once the write has landed (so waiters find the entry), or at once when
   * there is nothing to write.
   */
  async #runAndStore<T>(request: FillRequest<T>, fill: Fill, how: StoreHow): Promise<T> {
    const { host } = this;
    const { lease, generations } = how;
    fill.asOf = how.snapshot ?? UNKNOWN_STATE;
    let write: StartedWrite | undefined;
    let ran: Ran<T>;
    try {
      ran = await this.#run(request, (fill.kept as { value: T } | undefined)?.value, false);
      const started = this.#startWrite(request, ran, generations, how.snapshot);
      write = started instanceof Promise ? await started : started;
    } catch (error) {
      if (lease) this.#keep(request, lease.release());
      throw error;
    }
    if (write === undefined) {
      if (lease) this.#keep(request, lease.release());
      return ran.value;
    }
    fill.written = write.landed;
    this.#keep(request, write.landed);
    fill.freshUntil = host.now() + (ran.context.lifetimes ?? request.lifetimes).freshFor;
    if (lease)
      this.#keep(
        request,
        write.landed.then(() => lease.release()),
      );
    return ran.value;
  }

  /**
   * Starts storing what a run returned, as its context asked: nothing after `skip()` or when
   * `generations` is undefined (the tags' state is unknown or fenced), else with the context's
   * lifetimes and tags. Tags the factory named that the call did not have their generations
   * read now (a promise then; throws, like the write, when the value cannot be encoded).
   */
  #startWrite<T>(
    request: FillRequest<T>,
    ran: Ran<T>,
    generations: readonly TagGeneration[] | undefined,
    snapshot: TagSnapshot | undefined,
    write: Writer = this.#writeOne,
  ): StartedWrite | undefined | Promise<StartedWrite | undefined> {
    const { host } = this;
    const { context, value } = ran;
    if (generations === undefined || context.skipped) return undefined;
    const lifetimes = context.lifetimes ?? request.lifetimes;
    const { key, full, version } = request;
    const tags = context.tags;
    if (tags === undefined) return { landed: write({ key, full, value, lifetimes, generations, version }) };
    const known = (snapshot?.generations ?? NO_GENERATIONS).filter((recorded) => tags.includes(recorded.tag));
    const added = tags.filter((tag) => !known.some((recorded) => recorded.tag === tag));
    if (added.length === 0) return { landed: write({ key, full, value, lifetimes, generations: known, version }) };
    // Written alone, once the added tags' state is known (a batch has sent its own writes by then).
    return host.snapshot(added).then((later) => {
      if (later === undefined) return undefined;
      if (later.fenced.length > 0) {
        host.wasFenced(request.key, later.fenced);
        return undefined;
      }
      return { landed: host.write(request.key, request.full, value, lifetimes, [...known, ...later.generations], request.version) };
    });
  }

  #refresh<T>(request: FillRequest<T>, snapshot: TagSnapshot | undefined, stale: T): void {
    const { host } = this;
    const { key, full, tags } = request;
    if (this.#refreshes.has(full)) return;
    host.counters.refreshes++;
    host.events.emit('refresh', { key });
    const run = (async () => {
      const snap = tags.length > 0 && snapshot === undefined ? await host.snapshot(tags) : snapshot;
      // A write in progress (or tags of unknown state): the refresh could not be stored.
      if (tags.length > 0 && (snap === undefined || snap.fenced.length > 0)) return;
      // One refresh across processes where the store holds fill leases: a lease held elsewhere
      // is another process computing this key (its refresh, or a fill that will store it), so
      // this one keeps serving the stale value. A store that cannot answer does not stop it.
      const lease = host.leases ? await host.leases.acquire(key) : 'unavailable';
      if (lease === 'held') return;
      try {
        const ran = await this.#run(request, stale, true);
        this.#backoffs.delete(full);
        await (await this.#startWrite(request, ran, snap?.generations ?? NO_GENERATIONS, snap))?.landed;
      } finally {
        if (lease !== 'unavailable') await lease.release();
      }
    })().catch((error: unknown) => {
      // Stale-if-error: the stale entry stays in place and keeps being served; the failure
      // is reported, never thrown, because no caller is waiting on a background refresh.
      this.#failed(request);
      host.events.emit('error', { source: 'factory', operation: 'refresh', keys: [key], error });
    });
    this.#refreshes.set(full, run);
    this.#keep(request, run);
    run.then(() => this.#refreshes.delete(full));
  }

  /**
   * Runs the factory once with its context, within `factoryTimeout`, and reports the run. The
   * context's signal is aborted when the time is up or the cache closes; a run whose factory
   * called `ctx.fail()` is a failure whatever it then returned.
   */
  #run<T>(request: FillRequest<T>, stale: T | undefined, background: boolean): Promise<Ran<T>> {
    const { events, counters, factoryTimeoutMs, closing } = this.host;
    const { key } = request;
    const began = performance.now();
    const controller = new AbortController();
    const context = new FillContext<T>(key, stale, controller.signal, request.lifetimes);
    const onClose = () => controller.abort(closing.reason);
    if (closing.aborted) onClose();
    else closing.addEventListener('abort', onClose, { once: true });
    let run: Promise<T> = new Promise<T>((resolve) => resolve(request.factory(context)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (Number.isFinite(factoryTimeoutMs)) {
      run = Promise.race([
        run,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new FactoryTimeoutError(key, factoryTimeoutMs);
            controller.abort(error);
            reject(error);
          }, factoryTimeoutMs);
        }),
      ]);
    }
    counters.fills++;
    const settled = () => {
      if (timer !== undefined) clearTimeout(timer);
      closing.removeEventListener('abort', onClose);
    };
    const failed = (error: unknown): never => {
      counters.factoryErrors++;
      if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background, error });
      throw error;
    };
    return run.then(
      (value) => {
        settled();
        if (context.failure) return failed(context.failure.error);
        if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background });
        return { value, context };
      },
      (error: unknown) => {
        settled();
        return failed(context.failure ? context.failure.error : error);
      },
    );
  }

  /** One entry's write, on its own. */
  readonly #writeOne: Writer = (write) => this.host.write(write.key, write.full, write.value, write.lifetimes, write.generations, write.version);

  /** Keeps background work of `request` for close() and its `waitUntil`. */
  #keep(request: Pick<FillRequest<unknown>, 'waitUntil'>, work: Promise<unknown>): void {
    this.host.track(work, request.waitUntil);
  }

  /**
   * Whether a fill may still be joined: yes until its value is known, then while that value is
   * fresh (its write may land after the clock has moved past its ttl: joining would serve a
   * value the store would already call stale).
   */
  #current(fill: Fill): boolean {
    return fill.freshUntil === undefined || this.host.now() < fill.freshUntil;
  }

  #join<T>(key: string, fill: Promise<T>): Promise<T> {
    this.host.counters.coalesced++;
    this.host.events.emit('coalesced', { key, remote: false });
    return fill;
  }

  /** Another process's fill (or the fill after a write's commit) provided the value. */
  #remoteJoin(key: string): void {
    this.host.counters.coalesced++;
    this.host.events.emit('coalesced', { key, remote: true });
  }
}

/** How a factory's value is kept: the generations to record (undefined: served, not stored), the lease to release, the tags' state it ran under. */
interface StoreHow {
  readonly generations: readonly TagGeneration[] | undefined;
  readonly lease: FillLease | undefined;
  readonly snapshot: TagSnapshot | undefined;
}

/** The missing keys of one `getOrSetMany` call, gathered before its factory runs. */
class Batch<T> {
  readonly entries: Array<{ request: FillRequest<T>; fill: Fill; snapshot: TagSnapshot | undefined; settle: { resolve(value: T): void; reject(error: unknown): void } }> = [];

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

/** `lookup` with `found` in place of what it found (its snapshot still taken only when asked for). */
function withFound<T>(lookup: TaggedLookup<T>, found: Lookup<T>): TaggedLookup<T> {
  return {
    found,
    get snapshot() {
      return lookup.snapshot;
    },
    failed: lookup.failed,
  };
}

/** What one factory run returned, with the context it ran with (what it asked for). */
interface Ran<T> {
  readonly value: T;
  readonly context: FillContext<T>;
}

/** A store write a fill started: `landed` settles (never rejects) once it has. */
interface StartedWrite {
  readonly landed: Promise<unknown>;
}

/** Keys whose failure is remembered for `graceBackoff` at most at once (the oldest is forgotten first). */
const MAX_BACKOFFS = 10_000;

/** An entry that records no tags. */
const NO_GENERATIONS: readonly TagGeneration[] = Object.freeze([]);

/** A fill in flight in this process. */
interface Fill {
  promise: Promise<unknown>;
  /** The tags' state its factory started under; undefined while it has not started (it waits for a lease or a write). */
  asOf: TagSnapshot | undefined;
  /** Its store write, once started: the fill stays joinable until it has landed. */
  written: Promise<unknown> | undefined;
  /** Once its value is known: until when (by the cache's clock) that value is fresh. */
  freshUntil: number | undefined;
  /** The value kept past grace for a stale-if-error window: the factory's `ctx.stale`, served if it fails. */
  kept: { value: unknown } | undefined;
}

/** The state of a fill whose tags were not read (the store failed): nobody with tags joins it. */
const UNKNOWN_STATE: TagSnapshot = Object.freeze({ generations: Object.freeze([]), fenced: Object.freeze([]) });

/**
 * Whether a tagged caller that read `current` may take the value of `fill`: yes while its
 * factory has not started (it will read the source later than now), or when no generation
 * moved since it started (no write committed in between, so it read what this caller would).
 * Otherwise the caller fills for itself: joining would hand it a value older than a commit
 * that returned before it asked.
 */
function joinable(fill: Fill, current: TagSnapshot | undefined): boolean {
  if (fill.asOf === undefined || current === undefined) return true;
  if (current.fenced.length > 0 || fill.asOf.fenced.length > 0) return false;
  return sameGenerations(fill.asOf, current);
}

/** True when every tag of `later` is at the generation `earlier` recorded for it. */
function sameGenerations(earlier: TagSnapshot, later: TagSnapshot): boolean {
  return later.generations.every((now) => earlier.generations.some((then) => then.tag === now.tag && then.generation === now.generation));
}
