import type { TagGeneration } from '../codec/envelope.ts';
import { StoreBusyError } from '../store/errors.ts';
import type { CacheEvents, CacheStats } from './events.ts';
import { FactoryTimeoutError } from './errors.ts';
import { backoff, type FillLease, type FillLeases } from './leases/fill-leases.ts';
import type { TagSnapshot } from './tiers/tier.ts';
import type { Factory } from './types.ts';

/** A read as `getOrSet` sees it: fresh, stale (inside grace), or nothing usable. */
export type Lookup<T> = { state: 'fresh' | 'stale'; value: T } | undefined;

/** A read with the state of the tags the caller named (undefined when none were, or the read failed). */
export interface TaggedLookup<T> {
  readonly found: Lookup<T>;
  /** May be built when first asked for: read it only when it is needed (a miss, a stale read). */
  readonly snapshot: TagSnapshot | undefined;
  /** The store failed: the fill takes no lease (it would cost a second timeout) and computes at once. */
  failed?: boolean;
}

/** How long a value lives, resolved once per call. */
export interface Lifetimes {
  freshFor: number;
  staleFor: number;
}

/** One `getOrSet` call, its inputs resolved once by the front. */
export interface FillRequest<T> {
  /** The caller's key. */
  readonly key: string;
  /** Its store key. */
  readonly full: string;
  readonly factory: Factory<T>;
  readonly lifetimes: Lifetimes;
  /** The caller's tags, checked and without duplicates. */
  readonly tags: readonly string[];
  /** When the call began (performance.now()), or 0 when nobody listens for durations. */
  readonly started: number;
}

/** What the fill handler needs from the engine's front. */
export interface FillHost {
  readonly events: CacheEvents;
  readonly counters: CacheStats;
  readonly factoryTimeoutMs: number;
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
   * starts its write; the returned promise settles when the write has (it never rejects) and is
   * tracked for close().
   */
  write(key: string, full: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[]): Promise<unknown>;
  /** Keeps `work` in the set that close() waits for. */
  track(work: Promise<unknown>): void;
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

  constructor(private readonly host: FillHost) {}

  getOrSet<T>(request: FillRequest<T>): Promise<T> {
    const { host } = this;
    // Untagged: join a fill in flight at once. Tagged: only after reading the tags' state, which
    // tells whether a write committed since that fill's factory began (see joinable).
    const filling = request.tags.length === 0 ? this.#fills.get(request.full) : undefined;
    if (filling) return this.#join(request.key, filling.promise as Promise<T>);
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

  /** What a call does with what its read found: serve it, serve it stale and refresh, join a fill or fill. */
  #answer<T>(request: FillRequest<T>, lookup: TaggedLookup<T>): T | Promise<T> {
    const { host } = this;
    const { found } = lookup;
    if (found?.state === 'fresh') {
      host.hit(request.key, request.started);
      return found.value;
    }
    if (found?.state === 'stale') {
      host.counters.staleServed++;
      host.events.emit('stale', { key: request.key });
      this.#refresh(request, lookup.snapshot, found.value);
      return found.value;
    }
    // A hit needs no snapshot of the tags: it is taken only here (a tier may build it on demand).
    const { snapshot } = lookup;
    // Another caller may have started the fill while this one was reading.
    const running = this.#fills.get(request.full);
    if (running && joinable(running, snapshot)) return this.#join(request.key, running.promise as Promise<T>);
    host.miss(request.key, request.started);
    // Superseding an outdated fill of this process: its lease is probably the one held, so
    // waiting for it would only delay this call; generations keep the result correct.
    return this.#fill(request, snapshot, lookup.failed === true, running !== undefined);
  }

  #fill<T>(request: FillRequest<T>, snapshot: TagSnapshot | undefined, storeFailed: boolean, superseding: boolean): Promise<T> {
    const fill: Fill = { promise: Promise.resolve(), asOf: undefined, written: undefined };
    // A store that just failed the read gets no lease request (one call, one timeout at most):
    // the value is computed at once and its write goes out in the background as usual.
    const value = storeFailed
      ? this.#runAndStore(request, fill, { generations: request.tags.length === 0 ? NO_GENERATIONS : undefined, lease: undefined, snapshot: undefined })
      : this.#obtain(request, fill, snapshot, superseding ? undefined : this.host.leases);
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
            const latest = await host.lookup<T>(key, full, tags);
            if (latest.found?.state === 'fresh') {
              host.track(owned.release());
              this.#remoteJoin(key);
              return latest.found.value;
            }
            if (tags.length > 0 && (latest.snapshot === undefined || latest.snapshot.fenced.length > 0)) {
              host.track(owned.release());
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
      const again = await host.lookup<T>(key, full, tags);
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
    let value: T;
    try {
      value = await this.#run(request.key, request.factory, undefined, false);
    } catch (error) {
      if (lease) host.track(lease.release());
      throw error;
    }
    if (generations === undefined) {
      if (lease) host.track(lease.release());
      return value;
    }
    let written: Promise<unknown>;
    try {
      written = host.write(request.key, request.full, value, request.lifetimes, generations);
    } catch (error) {
      if (lease) host.track(lease.release());
      throw error;
    }
    fill.written = written;
    if (lease) host.track(written.then(() => lease.release()));
    return value;
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
      // No fill lease: a refresh serves nobody who waits, so one per process is cheap enough,
      // and a lease held elsewhere must not cancel it.
      const value = await this.#run(key, request.factory, stale, true);
      await host.write(key, full, value, request.lifetimes, snap?.generations ?? NO_GENERATIONS);
    })().catch(
      // Stale-if-error: the stale entry stays in place and keeps being served; the failure
      // is reported, never thrown, because no caller is waiting on a background refresh.
      (error: unknown) => host.events.emit('error', { source: 'factory', operation: 'refresh', keys: [key], error }),
    );
    this.#refreshes.set(full, run);
    host.track(run);
    run.then(() => this.#refreshes.delete(full));
  }

  /** Runs the factory once, within `factoryTimeout`, and reports the run. */
  #run<T>(key: string, factory: Factory<T>, stale: T | undefined, background: boolean): Promise<T> {
    const { events, counters, factoryTimeoutMs } = this.host;
    const began = performance.now();
    let run: Promise<T> = new Promise<T>((resolve) => resolve(factory({ key, stale })));
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (Number.isFinite(factoryTimeoutMs)) {
      run = Promise.race([
        run,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new FactoryTimeoutError(key, factoryTimeoutMs)), factoryTimeoutMs);
        }),
      ]);
    }
    counters.fills++;
    return run.then(
      (value) => {
        if (timer !== undefined) clearTimeout(timer);
        if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background });
        return value;
      },
      (error: unknown) => {
        if (timer !== undefined) clearTimeout(timer);
        counters.factoryErrors++;
        if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background, error });
        throw error;
      },
    );
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

/** An entry that records no tags. */
const NO_GENERATIONS: readonly TagGeneration[] = Object.freeze([]);

/** A fill in flight in this process. */
interface Fill {
  promise: Promise<unknown>;
  /** The tags' state its factory started under; undefined while it has not started (it waits for a lease or a write). */
  asOf: TagSnapshot | undefined;
  /** Its store write, once started: the fill stays joinable until it has landed. */
  written: Promise<unknown> | undefined;
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
