import { CircuitOpenError, StoreClosedError } from '../../store/errors.ts';
import type { CacheEvents, CacheStats } from '../events.ts';
import type { ResolvedOptions } from '../options.ts';
import type { HealthChange } from '../path/breaker.ts';
import type { GuardReporter } from '../path/guard.ts';
import { Reachability } from '../reachability.ts';
import { strictStoreError } from '../strict-error.ts';

/** What the reporting role reads: the options, and the counters and events it reports into. */
export interface ReportsContext {
  readonly options: ResolvedOptions;
  readonly counters: CacheStats;
  readonly events: CacheEvents;
}

/**
 * Store failures, reported once (docs/architecture.md#failure-trust-and-reporting): the guard
 * tells this role of every call that reached the store and failed, of the calls its breaker
 * skipped and of each change of health; every other role hands it the failures it meets, and
 * gets back the documented fallback (a miss, `false`, `0`, `undefined`), or the error to throw
 * when the cache is strict.
 */
export class StoreReports implements GuardReporter {
  readonly #ctx: ReportsContext;
  /** Failures the guard already reported, so that a role reports only what it did not see. */
  readonly #reported = new WeakSet<object>();
  /** Says in the log when the store stops answering and when it answers again; none without a logger. */
  readonly #reachability: Reachability | undefined;

  constructor(ctx: ReportsContext) {
    this.#ctx = ctx;
    this.#reachability = ctx.options.logger && new Reachability(ctx.options.store, ctx.options.logger);
  }

  failed(operation: string, keys: string | readonly string[], error: unknown): void {
    const { counters, events } = this.#ctx;
    counters.storeErrors++;
    if (typeof error === 'object' && error !== null) this.#reported.add(error);
    if (events.listens('error')) events.emit('error', { source: 'store', operation, keys: typeof keys === 'string' ? [keys] : keys, error });
  }

  skipped(): void {
    this.#ctx.counters.storeSkipped++;
  }

  healthChanged(change: HealthChange): void {
    // The first failure is said before the breaker's lines, the recovery after them.
    if (change.state !== 'up') this.#reachability?.changed(change);
    if (change.state === 'failing' || change.state === 'answering') return;
    const { options, events } = this.#ctx;
    const { store } = options;
    const label = store.address ? `${store.name} ${store.address}` : store.name;
    const what = change.kind === 'read' ? 'reads' : 'writes';
    if (change.state === 'down') {
      options.logger?.warn(`cachette: ${label} ${what} down: ${change.cause} (${change.failures} consecutive failures); skipping them, one probe every ${options.breaker.cooldownMs} ms`);
      events.emit('health', { store: store.name, address: store.address, kind: change.kind, state: 'down', cause: change.cause, failures: change.failures });
    } else {
      options.logger?.info(`cachette: ${label} ${what} recovered after ${Math.round(change.downForMs)} ms (${change.skipped} calls skipped meanwhile)`);
      events.emit('health', { store: store.name, address: store.address, kind: change.kind, state: 'up', downForMs: change.downForMs, skipped: change.skipped });
      this.#reachability?.changed(change);
    }
  }

  /**
   * What a failed store call becomes: thrown in strict mode, otherwise `fallback` (after
   * `onMiss`); a {@link StoreClosedError} is thrown as it is, whatever the mode, and not
   * reported. A failure the guard did not see (a bug above it) is reported here.
   */
  fallback<F>(error: unknown, operation: string, keys: string | readonly string[], onMiss: (() => void) | undefined, fallback: F): F {
    // A closed store is the caller's mistake, not an outage to hide behind a miss: thrown as it is.
    if (error instanceof StoreClosedError) throw error;
    this.report(error, operation, keys);
    if (this.#ctx.options.strict) throw strictStoreError(error, this.#ctx.options.store, operation);
    onMiss?.();
    return fallback;
  }

  /**
   * A failed write that no caller waits for (a fill's store write): the {@link fallback},
   * except that a closed store is reported (an `error` event) instead of thrown at nobody.
   */
  backgroundFailure(error: unknown, operation: string, keys: string | readonly string[]): void {
    if (error instanceof StoreClosedError) this.report(error, operation, keys);
    else this.fallback(error, operation, keys, undefined, undefined);
  }

  /**
   * A failed invalidation (`invalidateTags`, a fence's `beginWrite` or `commit()`): the
   * {@link fallback}, except that one the breaker skipped is reported too, as an `error` event
   * carrying the CircuitOpenError (counted in `storeSkipped`, not in `storeErrors`). Other
   * skipped calls are said once per outage (the `health` event) because each answers its
   * caller; a skipped invalidation answers nobody (commit() resolves), yet other processes and
   * their L1 keep serving what it should have invalidated (docs/l1.md, "When an invalidation
   * could not be made").
   */
  invalidationFailed(error: unknown, operation: string, keys: readonly string[]): void {
    const { events } = this.#ctx;
    if (error instanceof CircuitOpenError && events.listens('error')) events.emit('error', { source: 'store', operation, keys, error });
    this.fallback(error, operation, keys, undefined, undefined);
  }

  /** Reports a failure the guard did not see (a bug above it, or a layer's own error), and never one skipped by the breaker. */
  report(error: unknown, operation: string, keys: string | readonly string[]): void {
    const seen = typeof error === 'object' && error !== null && this.#reported.has(error);
    if (!seen && !(error instanceof CircuitOpenError)) this.failed(operation, keys, error);
  }
}
