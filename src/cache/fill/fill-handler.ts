import type { TagGeneration } from '../../codec/envelope.ts';
import { StoreBusyError } from '../../store/errors.ts';
import type { EngineContext } from '../roles/context.ts';
import type { Reads, TaggedLookup } from '../roles/reads.ts';
import { NO_GENERATIONS, type Writes } from '../roles/writes.ts';
import type { FillLease, FillLeases } from '../leases/fill-leases.ts';
import { backoff } from '../leases/fill-leases.ts';
import type { TagSnapshot } from '../tiers/tier.ts';
import type { BatchFactory } from '../types.ts';
import { Backoffs } from './backoffs.ts';
import { Batch } from './batch.ts';
import { checkedLookup, type OnInvalid } from './checked-lookup.ts';
import { runFactory, type Ran } from './factory-run.ts';
import type { FillRequest } from './fill-request.ts';
import { joinable, sameGenerations, UNKNOWN_STATE, type Fill } from './in-flight.ts';
import { startWrite, type StartedWrite } from './start-write.ts';

/**
 * `getOrSet` (docs/architecture.md#the-engine): the read, then on a miss one factory run per
 * key however many callers wait, in this process (one promise per key) and across processes (a
 * fill lease, when the store can hold one), and inside the grace window the stale value while
 * exactly one background refresh runs. The write after a fill is not awaited by the callers: a
 * store that hangs costs them one timeout (the read), not two. The fill stays registered until
 * its write has landed, so that a call arriving in between joins it instead of running the
 * factory again.
 *
 * With tags, the generations read with the entry (before any factory runs) are what the new
 * entry records. When a write lease is held on one of them, nothing computed now may be stored:
 * the fill reads the source and serves the value without storing it.
 *
 * It reads through the read role and stores through the write role, both handed the same
 * {@link EngineContext}: a miss goes down and back without passing through the front again.
 */
export class FillHandler {
  readonly #fills = new Map<string, Fill>();
  readonly #refreshes = new Map<string, Promise<unknown>>();
  readonly #backoffs: Backoffs;
  readonly #ctx: EngineContext;
  readonly #reads: Reads;
  readonly #writes: Writes;

  constructor(ctx: EngineContext, reads: Reads, writes: Writes) {
    this.#ctx = ctx;
    this.#reads = reads;
    this.#writes = writes;
    this.#backoffs = new Backoffs(ctx.clock);
  }

  getOrSet<T>(request: FillRequest<T>): Promise<T> {
    const reads = this.#reads;
    // Untagged: join a fill in flight at once. Tagged: only after reading the tags' state, which
    // tells whether a write committed since that fill's factory began (see joinable).
    const filling = request.tags.length === 0 ? this.#fills.get(request.full) : undefined;
    if (filling && this.#current(filling)) return this.#join(request.key, filling.promise as Promise<T>);
    if (reads.synchronous) {
      // A store that answers synchronously: a hit costs no promise chain at all.
      try {
        return Promise.resolve(this.#answer(request, reads.lookupNow<T>(request.key, request.full, request.tags)));
      } catch (error) {
        // A store too busy to answer now: the read below waits for it.
        if (!(error instanceof StoreBusyError)) return Promise.reject(error);
      }
    }
    // A then-chain rather than async/await: a hit, the common case, costs no extra ticks.
    return reads.lookup<T>(request.key, request.full, request.tags).then((found) => this.#answer(request, found));
  }

  /** What a call does with what its read found, once the value passed the call's version and schema. */
  #answer<T>(request: FillRequest<T>, lookup: TaggedLookup<T>): T | Promise<T> {
    const checked = checkedLookup(request, lookup, this.#invalid);
    return checked instanceof Promise ? checked.then((accepted) => this.#serve(request, accepted)) : this.#serve(request, checked);
  }

  /** Counts and reports a stored value refused by the call's version or schema: a miss, refilled. */
  readonly #invalid: OnInvalid = (key, reason, issues) => {
    const { counters, events } = this.#ctx;
    counters.invalid++;
    if (events.listens('invalid')) events.emit('invalid', { key, reason, issues: issues ?? [] });
  };

  /**
   * `getOrSetMany`: every key read in one tick (the batcher folds the reads into one round
   * trip), each answered as `getOrSet` would (fresh, stale with a refresh of its own, joined to
   * a fill in flight), and the misses filled by one factory call, whose values are written in
   * one tick (one round trip). Each missing key is registered as a fill of its own, so
   * concurrent `getOrSet` and `getOrSetMany` callers join it. No fill lease is taken: leases
   * are per key, and waiting for another process's fill of some keys would hold up the rest.
   */
  async getOrSetMany<T>(requests: ReadonlyArray<FillRequest<T>>, factory: BatchFactory<T>): Promise<T[]> {
    const reads = this.#reads;
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
      ? reads.lookupMany<T>(
          toRead.map((request) => request.key),
          toRead.map((request) => request.full),
        )
      : undefined;
    let next = 0;
    const lookups = requests.map((request) => {
      if (toRead[next] !== request) return undefined;
      const at = next++;
      return many ? many.then((found) => found[at]!) : reads.lookup<T>(request.key, request.full, request.tags);
    });
    const checked = await Promise.all(lookups.map((read, i) => read?.then((lookup) => checkedLookup(requests[i]!, lookup, this.#invalid))));
    const answers = requests.map((request, i) => {
      const lookup = checked[i];
      return lookup === undefined ? this.#join(request.key, joined[i]!) : this.#serve(request, lookup, batch);
    });
    if (batch.size > 0) batch.fill(this.#ctx, reads, this.#writes);
    return Promise.all(answers);
  }

  /** Serves what the read found, serves it stale and refreshes, joins a fill or fills (alone, or in `batch`). */
  #serve<T>(request: FillRequest<T>, lookup: TaggedLookup<T>, batch?: Batch<T>): T | Promise<T> {
    const ctx = this.#ctx;
    const { found } = lookup;
    if (found?.state === 'fresh') {
      this.#reads.hit(request.key, request.started);
      // Refresh-ahead: far enough through its ttl, a hot entry is refreshed before it turns stale.
      if (refreshDue(found, request.refreshAhead ?? ctx.options.refreshAhead, request.xfetch ?? ctx.options.xfetch, ctx.now()) && !this.#backoffs.backingOff(request.full)) {
        this.#refresh(request, lookup.snapshot, found.value);
      }
      return found.value;
    }
    if (found?.state === 'stale') {
      if (this.#backoffs.backingOff(request.full)) return this.#servedOnError(request.key, found.value, undefined);
      ctx.counters.staleServed++;
      ctx.events.emit('stale', { key: request.key });
      this.#refresh(request, lookup.snapshot, found.value);
      return found.value;
    }
    // Past grace, inside the call's stale-if-error window: kept for the case the source fails.
    const kept = found?.state === 'expired' && ctx.now() < found.freshUntil + (request.lifetimes.errorFor ?? 0) ? found : undefined;
    if (kept && this.#backoffs.backingOff(request.full)) return this.#servedOnError(request.key, kept.value, undefined);
    // A hit needs no snapshot of the tags: it is taken only here (a tier may build it on demand).
    const { snapshot } = lookup;
    // Another caller may have started the fill while this one was reading.
    const running = this.#fills.get(request.full);
    if (running && this.#current(running) && joinable(running, snapshot)) return this.#join(request.key, running.promise as Promise<T>);
    this.#reads.miss(request.key, request.started);
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
        : this.#obtain(request, fill, snapshot, superseding ? undefined : this.#ctx.leases);
    // The source failed: every waiter gets the kept value when there is one (stale-if-error).
    const value = filled.then(
      (result) => {
        this.#backoffs.succeeded(request.full);
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
    value.then(() => (this.#reads.synchronous || fill.written === undefined ? release() : fill.written.then(release)), release);
    return value;
  }

  /** Notes a failure of the key's source, for `graceBackoff`. */
  #failed(request: Pick<FillRequest<unknown>, 'full' | 'graceBackoffMs'>): void {
    this.#backoffs.failed(request.full, request.graceBackoffMs ?? this.#ctx.options.graceBackoffMs);
  }

  /** Serves a stale or kept value because the source failed (`error`) or failed recently (undefined: backing off). */
  #servedOnError<T>(key: string, value: T, error: unknown): T {
    const { counters, events } = this.#ctx;
    counters.staleOnError++;
    if (events.listens('staleOnError')) events.emit('staleOnError', { key, error, backoff: error === undefined });
    return value;
  }

  /** The value for a miss: from the source during a write in progress, else filled under a lease or taken from another process's fill. */
  async #obtain<T>(request: FillRequest<T>, fill: Fill, snapshot: TagSnapshot | undefined, leases: FillLeases | undefined): Promise<T> {
    const reads = this.#reads;
    const { key, full, tags } = request;
    const deadline = performance.now() + this.#ctx.options.lockTimeoutMs;
    let snap = snapshot;
    if (tags.length > 0 && snap === undefined) snap = await reads.snapshot(tags);
    for (let attempt = 0; ; attempt++) {
      // Tags whose state is unknown (the store failed) cannot be recorded: serve, do not store.
      const storable = tags.length === 0 || (snap !== undefined && snap.fenced.length === 0);
      if (snap !== undefined && snap.fenced.length > 0) {
        // A write is in progress: the source is read now and the value served, not stored.
        // Waiting for the commit instead would share one fill, but under frequent writes every
        // reader would queue behind them (bench/race measured it: reads/s fell tenfold).
        this.#writes.fenced(key, snap.fenced);
        return this.#runAndStore(request, fill, { generations: undefined, lease: undefined, snapshot: snap });
      } else if (leases && storable) {
        const lease = await leases.acquire(key);
        if (lease !== 'held') {
          const owned = lease === 'unavailable' ? undefined : lease;
          // The lease may be free because its holder has just stored the value (it releases
          // once its write lands, possibly between our read and our lease request): one more
          // look before computing it again. A round trip on the miss path only.
          if (owned) {
            const latest = await checkedLookup(request, await reads.lookup<T>(key, full, tags), undefined);
            if (latest.found?.state === 'fresh') {
              this.#keep(request, owned.release());
              this.#remoteJoin(key);
              return latest.found.value;
            }
            if (tags.length > 0 && (latest.snapshot === undefined || latest.snapshot.fenced.length > 0)) {
              this.#keep(request, owned.abandon());
              snap = latest.snapshot;
              continue;
            }
            snap = latest.snapshot ?? snap;
          }
          return this.#runAndStore(request, fill, { generations: snap?.generations ?? NO_GENERATIONS, lease: owned, snapshot: snap });
        }
        if (attempt === 0) this.#ctx.counters.leaseWaits++;
        if (performance.now() >= deadline) return this.#runAndStore(request, fill, { generations: snap?.generations ?? NO_GENERATIONS, lease: undefined, snapshot: snap });
      } else {
        return this.#runAndStore(request, fill, { generations: storable ? (snap?.generations ?? NO_GENERATIONS) : undefined, lease: undefined, snapshot: snap });
      }
      // Another process's fill is at work. With a bus that will tell of its write, wait for
      // that; else look again shortly. The look below is issued after the watch was opened: when
      // it still misses, the write is still to come and will be heard (or the lease given up,
      // or the bus lost, which ends the wait too).
      const watch = this.#ctx.tier.watch?.(full);
      let again: TaggedLookup<T>;
      try {
        if (watch === undefined) await backoff(attempt);
        again = await checkedLookup(request, await reads.lookup<T>(key, full, tags), undefined);
        if (watch !== undefined && again.found?.state !== 'fresh' && (await watch.until(deadline))) again = await checkedLookup(request, await reads.lookup<T>(key, full, tags), undefined);
      } finally {
        watch?.cancel();
      }
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
    const { lease, generations } = how;
    fill.asOf = how.snapshot ?? UNKNOWN_STATE;
    let write: StartedWrite | undefined;
    let ran: Ran<T>;
    try {
      ran = await runFactory(this.#ctx, request, (fill.kept as { value: T } | undefined)?.value, false);
      const started = startWrite(this.#reads, this.#writes, request, ran, generations, how.snapshot);
      write = started instanceof Promise ? await started : started;
    } catch (error) {
      if (lease) this.#keep(request, lease.abandon());
      throw error;
    }
    if (write === undefined) {
      if (lease) this.#keep(request, lease.abandon());
      return ran.value;
    }
    fill.written = write.landed;
    this.#keep(request, write.landed);
    fill.freshUntil = this.#ctx.now() + write.freshFor;
    if (lease)
      this.#keep(
        request,
        write.landed.then(() => lease.release()),
      );
    return ran.value;
  }

  #refresh<T>(request: FillRequest<T>, snapshot: TagSnapshot | undefined, stale: T): void {
    const ctx = this.#ctx;
    const { key, full, tags } = request;
    if (this.#refreshes.has(full)) return;
    ctx.counters.refreshes++;
    ctx.events.emit('refresh', { key });
    const run = (async () => {
      const snap = tags.length > 0 && snapshot === undefined ? await this.#reads.snapshot(tags) : snapshot;
      // A write in progress (or tags of unknown state): the refresh could not be stored.
      if (tags.length > 0 && (snap === undefined || snap.fenced.length > 0)) return;
      // One refresh across processes where the store holds fill leases: a lease held elsewhere
      // is another process computing this key (its refresh, or a fill that will store it), so
      // this one keeps serving the stale value. A store that cannot answer does not stop it.
      const lease = ctx.leases ? await ctx.leases.acquire(key) : 'unavailable';
      if (lease === 'held') return;
      let written = false;
      try {
        const ran = await runFactory(ctx, request, stale, true);
        this.#backoffs.succeeded(full);
        const write = await startWrite(this.#reads, this.#writes, request, ran, snap?.generations ?? NO_GENERATIONS, snap);
        written = write !== undefined;
        await write?.landed;
      } finally {
        // Nothing written: whoever waits for this lease is told it is free (FillLease.abandon).
        if (lease !== 'unavailable') await (written ? lease.release() : lease.abandon());
      }
    })().catch((error: unknown) => {
      // Stale-if-error: the stale entry stays in place and keeps being served; the failure
      // is reported, never thrown, because no caller is waiting on a background refresh.
      this.#failed(request);
      ctx.events.emit('error', { source: 'factory', operation: 'refresh', keys: [key], error });
    });
    this.#refreshes.set(full, run);
    this.#keep(request, run);
    run.then(() => this.#refreshes.delete(full));
  }

  /** Keeps background work of `request` for close() and its `waitUntil`. */
  #keep(request: Pick<FillRequest<unknown>, 'waitUntil'>, work: Promise<unknown>): void {
    this.#ctx.track(work, request.waitUntil);
  }

  /**
   * Whether a fill may still be joined: yes until its value is known, then while that value is
   * fresh (its write may land after the clock has moved past its ttl: joining would serve a
   * value the store would already call stale).
   */
  #current(fill: Fill): boolean {
    return fill.freshUntil === undefined || this.#ctx.now() < fill.freshUntil;
  }

  #join<T>(key: string, fill: Promise<T>): Promise<T> {
    this.#ctx.counters.coalesced++;
    this.#ctx.events.emit('coalesced', { key, remote: false });
    return fill;
  }

  /** Another process's fill (or the fill after a write's commit) provided the value. */
  #remoteJoin(key: string): void {
    this.#ctx.counters.coalesced++;
    this.#ctx.events.emit('coalesced', { key, remote: true });
  }
}

/**
 * Whether a fresh hit starts a background refresh: past `refreshAhead` of its ttl, or by
 * XFetch (Vattani, Chierichetti and Lowenstein, "Optimal Probabilistic Cache Stampede
 * Prevention", VLDB 2015): when `now − Δ·β·ln(random()) ≥ expiry`, Δ the factory's recorded
 * duration. −ln(random()) is exponential with mean 1, so a refresh becomes likelier as expiry
 * nears, sooner for slow factories, and hits in many processes rarely pick the same instant.
 */
export function refreshDue(
  found: { createdAt: number; freshUntil: number; computeMs?: number | undefined },
  refreshAhead: number | undefined,
  beta: number | undefined,
  now: number,
  random: () => number = Math.random,
): boolean {
  if (refreshAhead !== undefined && now >= found.createdAt + refreshAhead * (found.freshUntil - found.createdAt)) return true;
  const delta = found.computeMs;
  if (beta === undefined || !(beta > 0) || delta === undefined || !(delta > 0) || !Number.isFinite(found.freshUntil)) return false;
  return now - delta * beta * Math.log(random()) >= found.freshUntil;
}

/** How a factory's value is kept: the generations to record (undefined: served, not stored), the lease to release, the tags' state it ran under. */
interface StoreHow {
  readonly generations: readonly TagGeneration[] | undefined;
  readonly lease: FillLease | undefined;
  readonly snapshot: TagSnapshot | undefined;
}
