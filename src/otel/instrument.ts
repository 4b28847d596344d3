/**
 * Turns a cache's typed events into OpenTelemetry metrics and fill spans, through
 * `@opentelemetry/api` only: the application chooses the SDK and the exporters, and without
 * an SDK every call below is the API's no-op. Only the events something is recorded for get a
 * listener, so the engine keeps skipping event objects (and timing) for the rest.
 */
import type { Attributes, MeterProvider, ObservableCallback, TracerProvider } from '@opentelemetry/api';
import type { CacheEventMap, CacheEventType } from '../cache/events.ts';
import type { Cache } from '../cache/types.ts';
import { checkKnownOptions } from '../util/known-options.ts';
import { importPeer } from '../util/optional-peer.ts';
import { keyNamespace } from './key-namespace.ts';
import { ATTRIBUTE, METRIC, SPAN } from './names.ts';

// @opentelemetry/api is an optional peer: without it, importing cachette/otel fails with an error
// that names the package, not the runtime's bare "Cannot find package". Top-level, so that
// instrument() stays synchronous; an import() because this entry runs on every runtime.
const { metrics, SpanKind, SpanStatusCode, trace, ValueType } = await importPeer('cachette/otel', '@opentelemetry/api', () => import('@opentelemetry/api'));

/** What telemetry says about keys; see {@link InstrumentOptions.keys}. */
export type KeyDetail = 'namespace' | 'full' | 'none';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where metrics go. Default: the global provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Record metrics. Default true. */
  metrics?: boolean;
  /** Record a span per factory run. Default true. */
  traces?: boolean;
  /** Attributes added to every measurement and span, e.g. `{ 'cachette.cache.name': 'users' }`. */
  attributes?: Attributes;
  /**
   * What is said about keys, which may hold identifiers and leave the process with the
   * telemetry. Default "namespace". `namespace`: `cachette.key.namespace` on metrics and spans,
   * never the key; `full`: spans also carry the whole key as `cachette.key` and error messages stay as
   * thrown (metrics keep the namespace only: a key per series would explode their cardinality);
   * `none`: nothing about keys.
   */
  keys?: KeyDetail;
  /** Replaces the namespace rule; return undefined for none. Default: the name before the first `:` or `(` (`keyNamespace`). */
  namespace?: (key: string) => string | undefined;
}

/** Something instrumented; see {@link instrument}. */
export interface Instrumentation {
  /** Removes every listener and gauge callback: nothing more is recorded. Calling it again does nothing. */
  detach(): void;
}

/**
 * A cache, or anything that carries one: an `HttpCache` (as `cache`), or the handler
 * `httpCache` returns and the framework middlewares (as `httpCache.cache`).
 */
export type Instrumentable = Cache | { readonly cache: Cache } | { readonly httpCache: { readonly cache: Cache } };

const KNOWN: ReadonlyArray<keyof InstrumentOptions> = ['meterProvider', 'tracerProvider', 'metrics', 'traces', 'attributes', 'keys', 'namespace'];
const KEY_DETAILS: readonly KeyDetail[] = ['namespace', 'full', 'none'];
const SCOPE = 'cachette';

/**
 * Durations are recorded in seconds (the semantic conventions' unit); the buckets start at
 * 100 µs because an in-process hit takes microseconds, and end at 10 s, the longest a factory
 * is commonly allowed.
 */
const DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Records `cache`'s activity as OpenTelemetry metrics (see `METRIC`) and a `cachette.fill`
 * span per factory run, until `detach()`.
 *
 * ```ts
 * const telemetry = instrument(cache, { attributes: { 'cachette.cache.name': 'users' } });
 * // …
 * telemetry.detach();
 * ```
 */
export function instrument(target: Instrumentable, options: InstrumentOptions = {}): Instrumentation {
  checkKnownOptions(options, KNOWN, 'cachette/otel instrument');
  const cache = cacheOf(target);
  if (!cache?.events) throw new TypeError('cachette/otel instrument: pass a cache from createCache, an HttpCache, or a handler or middleware with an httpCache');
  const keys = options.keys ?? 'namespace';
  if (!KEY_DETAILS.includes(keys)) throw new TypeError(`cachette/otel instrument: "keys" must be one of ${KEY_DETAILS.join(', ')}; got ${JSON.stringify(keys)}`);
  if (options.namespace !== undefined && typeof options.namespace !== 'function') throw new TypeError('cachette/otel instrument: "namespace" must be a function (key) => string | undefined');

  const base: Attributes = { ...options.attributes };
  const namespaceOf = options.namespace ?? keyNamespace;
  /** The attributes of a measurement about `key`: the base ones, plus its namespace when allowed. */
  const about = (key: string, extra?: Attributes): Attributes => {
    const namespace = keys === 'none' ? undefined : namespaceOf(key);
    return namespace === undefined ? { ...base, ...extra } : { ...base, ...extra, [ATTRIBUTE.keyNamespace]: namespace };
  };

  const undo: Array<() => void> = [];
  const on = <K extends CacheEventType>(type: K, record: (detail: CacheEventMap[K]) => void): void => {
    const listener = (event: CustomEvent<CacheEventMap[K]>): void => {
      // An exception in an EventTarget listener surfaces as an uncaught error (it would crash
      // Node); telemetry must never take the application down, so a failure here is dropped.
      try {
        record(event.detail);
      } catch {}
    };
    cache.events.addEventListener(type, listener);
    undo.push(() => cache.events.removeEventListener(type, listener));
  };

  if (options.metrics !== false) {
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
    const counter = (name: string, description: string, unit: string) => meter.createCounter(name, { description, unit, valueType: ValueType.INT });
    const histogram = (name: string, description: string) =>
      meter.createHistogram(name, { description, unit: 's', valueType: ValueType.DOUBLE, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
    const lookups = counter(METRIC.lookups, 'Cache reads, by result: hit (fresh), miss, or stale (served inside the grace window)', '{lookup}');
    const lookupDuration = histogram(METRIC.lookupDuration, 'Duration of hit and miss reads: the store round trip and the decode');
    const fills = counter(METRIC.fills, 'Factory runs: fills a caller waits for, and background refreshes', '{fill}');
    const fillDuration = histogram(METRIC.fillDuration, 'Duration of factory runs');
    const errors = counter(METRIC.errors, 'Failed store calls, failed background refreshes, and values served but not stored', '{error}');
    const coalesced = counter(METRIC.coalesced, 'getOrSet calls that joined a fill already running for their key', '{call}');
    const refreshes = counter(METRIC.refreshes, 'Background refreshes started', '{refresh}');
    const corrupt = counter(METRIC.corrupt, 'Stored entries the engine could not read', '{entry}');

    const lookedUp =
      (result: 'hit' | 'miss') =>
      ({ key, durationMs }: { key: string; durationMs: number }) => {
        const attributes = about(key, { [ATTRIBUTE.lookupResult]: result });
        lookups.add(1, attributes);
        lookupDuration.record(durationMs / 1000, attributes);
      };
    on('hit', lookedUp('hit'));
    on('miss', lookedUp('miss'));
    on('stale', ({ key }) => lookups.add(1, about(key, { [ATTRIBUTE.lookupResult]: 'stale' })));
    on('fill', ({ key, durationMs, background, error }) => {
      const attributes = about(key, error === undefined ? { [ATTRIBUTE.fillBackground]: background } : { [ATTRIBUTE.fillBackground]: background, [ATTRIBUTE.errorType]: errorType(error) });
      fills.add(1, attributes);
      fillDuration.record(durationMs / 1000, attributes);
    });
    // Error keys are store keys (prefixed, possibly several): only the source and operation are kept.
    on('error', ({ source, operation, error }) => errors.add(1, { ...base, [ATTRIBUTE.errorSource]: source, [ATTRIBUTE.operation]: operation, [ATTRIBUTE.errorType]: errorType(error) }));
    on('coalesced', ({ key }) => coalesced.add(1, about(key)));
    on('refresh', ({ key }) => refreshes.add(1, about(key)));
    on('corrupt', ({ key }) => corrupt.add(1, about(key)));

    const storeUp = meter.createObservableGauge(METRIC.storeUp, {
      description: 'Whether reads or writes reach the store (1) or are skipped by the circuit breaker (0)',
      unit: '1',
      valueType: ValueType.INT,
    });
    const observeHealth: ObservableCallback = (result) => {
      const health = cache.health();
      result.observe(health.reads === 'up' ? 1 : 0, { ...base, [ATTRIBUTE.storeDirection]: 'read' });
      result.observe(health.writes === 'up' ? 1 : 0, { ...base, [ATTRIBUTE.storeDirection]: 'write' });
    };
    storeUp.addCallback(observeHealth);
    undo.push(() => storeUp.removeCallback(observeHealth));
  }

  if (options.traces !== false) {
    const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
    // The event arrives when the factory settles, so the span is recorded after the fact with
    // its real start time. It is emitted in the fill's own promise continuation, so a context
    // manager that follows promises (Node's AsyncLocalStorage one) parents it under the span of
    // the request that started the fill.
    on('fill', ({ key, durationMs, background, error }) => {
      const end = Date.now();
      const attributes = about(key, { [ATTRIBUTE.fillBackground]: background });
      if (keys === 'full') attributes[ATTRIBUTE.key] = key;
      const span = tracer.startSpan(SPAN.fill, { kind: SpanKind.INTERNAL, startTime: end - durationMs, attributes });
      if (error !== undefined) {
        const type = errorType(error);
        const message = keys === 'full' ? errorMessage(error) : redact(errorMessage(error), key, namespaceOf(key));
        span.setAttribute(ATTRIBUTE.errorType, type);
        span.recordException({ name: type, message }, end);
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      }
      span.end(end);
    });
  }

  let attached = true;
  return {
    detach() {
      if (!attached) return;
      attached = false;
      for (const step of undo) step();
    },
  };
}

/** The engine behind `target`; undefined when there is none (checked by the caller). */
function cacheOf(target: Instrumentable): Cache | undefined {
  if (typeof target !== 'object' && typeof target !== 'function') return undefined;
  if (target === null) return undefined;
  if ('events' in target) return target;
  if ('cache' in target) return target.cache;
  if ('httpCache' in target) return target.httpCache?.cache;
  return undefined;
}

/** `error.type` as the semantic conventions define it: the error's class, or `_OTHER`. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `message` without the key in it (the engine's own errors name their key), replaced by its namespace. */
function redact(message: string, key: string, namespace: string | undefined): string {
  return message.split(key).join(namespace === undefined ? '<key>' : `<${namespace}:…>`);
}
