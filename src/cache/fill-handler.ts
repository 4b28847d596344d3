import type { CacheEvents, CacheStats } from './events.ts';
import { FactoryTimeoutError } from './errors.ts';
import type { Factory } from './types.ts';

/** A read as `getOrSet` sees it: fresh, stale (inside grace), or nothing usable. */
export type Lookup<T> = { state: 'fresh' | 'stale'; value: T } | undefined;

/** How long a value lives, resolved once per call. */
export interface Lifetimes {
  freshFor: number;
  staleFor: number;
}

/** What the fill handler needs from the engine's front. */
export interface FillHost {
  readonly events: CacheEvents;
  readonly counters: CacheStats;
  readonly factoryTimeoutMs: number;
  /** Reads and decodes `full`; counts nothing. */
  lookup<T>(key: string, full: string): Promise<Lookup<T>>;
  /** Counts and reports a hit or a miss. */
  hit(key: string, started: number): void;
  miss(key: string, started: number): void;
  /**
   * Encodes `value` (throwing a TypeError when it cannot be encoded) and starts its write; the
   * returned promise settles when the write has (it never rejects) and is tracked for close().
   */
  write(key: string, full: string, value: unknown, lifetimes: Lifetimes): Promise<unknown>;
  /** Keeps `work` in the set that close() waits for. */
  track(work: Promise<unknown>): void;
}

/**
 * `getOrSet`: the read, then on a miss one factory run per key however many callers wait
 * (coalescing), and inside the grace window the stale value while exactly one background
 * refresh runs. The write after a fill is not awaited by the callers: a store that hangs
 * costs them one timeout (the read), not two. The fill stays registered until its write has
 * landed, so that a call arriving in between joins it instead of running the factory again.
 */
export class FillHandler {
  readonly #fills = new Map<string, Promise<unknown>>();
  readonly #refreshes = new Map<string, Promise<unknown>>();

  constructor(private readonly host: FillHost) {}

  getOrSet<T>(key: string, full: string, factory: Factory<T>, lifetimes: Lifetimes, started: number): Promise<T> {
    const filling = this.#fills.get(full);
    if (filling) return this.#join(key, filling as Promise<T>);
    // A then-chain rather than async/await: a hit, the common case, costs no extra ticks.
    return this.host.lookup<T>(key, full).then((found) => {
      if (found?.state === 'fresh') {
        this.host.hit(key, started);
        return found.value;
      }
      if (found?.state === 'stale') {
        this.host.counters.staleServed++;
        this.host.events.emit('stale', { key });
        this.#refresh(key, full, factory, lifetimes, found.value);
        return found.value;
      }
      // Another caller may have started the fill while this one was reading.
      const started2 = this.#fills.get(full);
      if (started2) return this.#join(key, started2 as Promise<T>);
      this.host.miss(key, started);
      return this.#fill(key, full, factory, lifetimes);
    });
  }


  #fill<T>(key: string, full: string, factory: Factory<T>, lifetimes: Lifetimes): Promise<T> {
    let written: Promise<unknown> | undefined;
    const fill = this.#run(key, factory, undefined, false).then((value) => {
      written = this.host.write(key, full, value, lifetimes);
      return value;
    });
    this.#fills.set(full, fill);
    const release = () => {
      if (this.#fills.get(full) === fill) this.#fills.delete(full);
    };
    fill.then(
      () => (written ?? Promise.resolve()).then(release),
      release,
    );
    return fill;
  }

  #refresh<T>(key: string, full: string, factory: Factory<T>, lifetimes: Lifetimes, stale: T): void {
    if (this.#refreshes.has(full)) return;
    this.host.counters.refreshes++;
    this.host.events.emit('refresh', { key });
    const run = this.#run(key, factory, stale, true).then(
      (value) => this.host.write(key, full, value, lifetimes),
      // Stale-if-error: the stale entry stays in place and keeps being served; the failure
      // is reported, never thrown, because no caller is waiting on a background refresh.
      (error: unknown) => this.host.events.emit('error', { source: 'factory', operation: 'refresh', keys: [key], error }),
    );
    this.#refreshes.set(full, run);
    this.host.track(run);
    run.then(() => this.#refreshes.delete(full));
  }

  /** Runs the factory once, within `factoryTimeout`, and reports the run. */
  #run<T>(key: string, factory: Factory<T>, stale: T | undefined, background: boolean): Promise<T> {
    const { events, counters: stats, factoryTimeoutMs } = this.host;
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
    stats.fills++;
    return run.then(
      (value) => {
        if (timer !== undefined) clearTimeout(timer);
        if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background });
        return value;
      },
      (error: unknown) => {
        if (timer !== undefined) clearTimeout(timer);
        stats.factoryErrors++;
        if (events.listens('fill')) events.emit('fill', { key, durationMs: performance.now() - began, background, error });
        throw error;
      },
    );
  }

  #join<T>(key: string, fill: Promise<T>): Promise<T> {
    this.host.counters.coalesced++;
    this.host.events.emit('coalesced', { key });
    return fill;
  }
}
