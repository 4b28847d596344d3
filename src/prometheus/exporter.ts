/**
 * The cache's counters and latencies as Prometheus metrics. Counters come from `stats()`
 * (complete since the cache was made); latency histograms and errors by operation come from
 * events, from the moment the exporter starts listening. Names follow cachette/otel's
 * instruments as an OpenTelemetry Prometheus exporter would spell them (`cachette.lookups`
 * becomes `cachette_lookups_total`, `cachette.lookup.result` the label `cachette_lookup_result`),
 * so one dashboard (docs/grafana-dashboard.json) reads either.
 */
import type { CacheEventMap, CacheStats } from '../cache/events.ts';
import type { Cache } from '../cache/types.ts';
import { checkKnownOptions, checkOptionsObject } from '../util/known-options.ts';
import { checkBuckets, DEFAULT_BUCKETS, Histogram } from './histogram.ts';
import { type Family, formatFamilies, LABEL_NAME, type Labels } from './text-format.ts';

/** Options of {@link prometheusMetrics} and {@link prometheusText}. */
export interface PrometheusOptions {
  /** Labels added to every series (e.g. `{ cache: 'pages' }` when one process has several caches). */
  labels?: Record<string, string>;
  /** Histogram upper bounds in seconds, ascending. Default 50 µs … 5 s (`DEFAULT_BUCKETS`). */
  buckets?: readonly number[];
}

/** A cache's metrics, listening from the moment it was made. */
export interface PrometheusMetrics {
  /** The exposition text (content type {@link PROMETHEUS_CONTENT_TYPE}). */
  text(): string;
  /** Stops listening to the cache's events (the counters from `stats()` still export). */
  stop(): void;
}

/** The `Content-Type` of the text format, for the response that serves it. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The counters taken from `stats()`: metric name, help, and the stat (or stats by label value). */
const COUNTERS: ReadonlyArray<readonly [name: string, help: string, stat: keyof CacheStats | Readonly<Record<string, keyof CacheStats>>, label?: string]> = [
  ['cachette_lookups_total', 'Reads, by result: fresh hits, misses, stale values served inside grace.', { hit: 'hits', miss: 'misses', stale: 'staleServed' }, 'cachette_lookup_result'],
  ['cachette_stale_on_error_total', 'Stale values served because the source failed.', 'staleOnError'],
  ['cachette_fills_total', 'Factory runs (foreground fills and background refreshes).', 'fills'],
  ['cachette_fill_errors_total', 'Factory failures and timeouts.', 'factoryErrors'],
  ['cachette_coalesced_total', 'getOrSet calls that joined a fill already running.', 'coalesced'],
  ['cachette_lease_waits_total', "Cold getOrSet calls that waited for another process's fill.", 'leaseWaits'],
  ['cachette_refreshes_total', 'Background refreshes started.', 'refreshes'],
  ['cachette_fenced_total', 'Fills not stored because a write held one of their tags.', 'fenced'],
  ['cachette_outdated_total', 'Entries refused because a tag was invalidated since they were written.', 'outdated'],
  ['cachette_invalid_total', 'Stored values refused by version or schema.', 'invalid'],
  ['cachette_corrupt_total', 'Stored entries the engine could not read.', 'corrupt'],
  ['cachette_too_large_total', 'Values served but not stored: above maxValueBytes.', 'tooLarge'],
  ['cachette_l1_bypassed_total', 'Coherent L1 reads sent to the store while coherence was not confirmed.', 'l1Bypassed'],
  ['cachette_store_errors_total', 'Store calls that failed or timed out.', 'storeErrors'],
  ['cachette_store_skipped_total', 'Store calls skipped while the circuit breaker held the store down.', 'storeSkipped'],
  ['cachette_store_read_bytes_total', 'Bytes of entries received from the store.', 'bytesRead'],
  ['cachette_store_written_bytes_total', 'Bytes of entries sent to the store.', 'bytesWritten'],
];

interface Recorder {
  readonly lookups: Record<'hit' | 'miss', Histogram>;
  readonly fills: Record<'true' | 'false', Histogram>;
  /** Errors by source and operation: both come from the engine's fixed sets, so the map stays small. */
  readonly errors: Map<string, { source: string; operation: string; count: number }>;
}

function checkLabels(labels: unknown, caller: string): Labels {
  if (labels === undefined) return {};
  if (typeof labels !== 'object' || labels === null) throw new TypeError(`${caller}: labels must be an object of label names to strings`);
  for (const [name, value] of Object.entries(labels)) {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new RangeError(`${caller}: ${JSON.stringify(name)} is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`);
    if (typeof value !== 'string') throw new TypeError(`${caller}: label ${name} must be a string, got ${typeof value}`);
  }
  return { ...(labels as Record<string, string>) };
}

/**
 * Starts recording `cache`'s metrics: latency histograms and errors from now on, counters from
 * `stats()`. Call it where the cache is made; serve `text()` on `/metrics`.
 *
 * ```ts
 * const metrics = prometheusMetrics(cache);
 * app.get('/metrics', () => new Response(metrics.text(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } }));
 * ```
 */
export function prometheusMetrics(cache: Cache, options: PrometheusOptions = {}): PrometheusMetrics {
  const recording = recordMetrics(cache, options, 'prometheusMetrics');
  return { text: () => formatFamilies(recording.families()), stop: recording.stop };
}

/** A cache's metric families, recorded from the moment it was made: shared by the text exporter and the prom-client collector. */
export interface MetricsRecording {
  /** The families as of now (counters read from `stats()` at this call). */
  families(): Family[];
  /** Stops listening to the cache's events. */
  stop(): void;
}

/** Checks `cache` and `options` (errors name `caller`) and starts listening to the cache's events. */
export function recordMetrics(cache: Cache, options: PrometheusOptions, caller: string): MetricsRecording {
  if (typeof cache?.stats !== 'function' || typeof cache.events?.addEventListener !== 'function') throw new TypeError(`${caller}: the first argument must be a cache made by createCache()`);
  checkOptionsObject(options, `${caller}()`);
  checkKnownOptions(options, ['labels', 'buckets'] satisfies ReadonlyArray<keyof PrometheusOptions>, `${caller}()`);
  const labels = checkLabels(options.labels, caller);
  const bounds = options.buckets === undefined ? DEFAULT_BUCKETS : checkBuckets(options.buckets, `${caller}()`);
  const recorder: Recorder = {
    lookups: { hit: new Histogram(bounds), miss: new Histogram(bounds) },
    fills: { true: new Histogram(bounds), false: new Histogram(bounds) },
    errors: new Map(),
  };
  const onHit = (event: Event) => recorder.lookups.hit.observe((event as CustomEvent<CacheEventMap['hit']>).detail.durationMs / 1000);
  const onMiss = (event: Event) => recorder.lookups.miss.observe((event as CustomEvent<CacheEventMap['miss']>).detail.durationMs / 1000);
  const onFill = (event: Event) => {
    const { durationMs, background } = (event as CustomEvent<CacheEventMap['fill']>).detail;
    recorder.fills[background ? 'true' : 'false'].observe(durationMs / 1000);
  };
  const onError = (event: Event) => {
    const { source, operation } = (event as CustomEvent<CacheEventMap['error']>).detail;
    const id = `${source}\u0000${operation}`;
    const seen = recorder.errors.get(id);
    if (seen) seen.count++;
    else recorder.errors.set(id, { source, operation, count: 1 });
  };
  const listeners = [
    ['hit', onHit],
    ['miss', onMiss],
    ['fill', onFill],
    ['error', onError],
  ] as const;
  for (const [type, listener] of listeners) cache.events.addEventListener(type, listener);
  return {
    families: () => families(cache, recorder, labels),
    stop() {
      for (const [type, listener] of listeners) cache.events.removeEventListener(type, listener);
    },
  };
}

function families(cache: Cache, recorder: Recorder, labels: Labels): Family[] {
  const stats = cache.stats();
  const health = cache.health();
  const out: Family[] = COUNTERS.map(([name, help, stat, label]) => ({
    name,
    help,
    type: 'counter',
    samples: typeof stat === 'string' ? [{ labels, value: stats[stat] }] : Object.entries(stat).map(([value, key]) => ({ labels: { ...labels, [label!]: value }, value: stats[key] })),
  }));
  out.push({
    name: 'cachette_errors_total',
    help: 'Errors seen since the exporter started, by source (store, factory, encode) and engine operation.',
    type: 'counter',
    samples: [...recorder.errors.values()].map(({ source, operation, count }) => ({ labels: { ...labels, cachette_error_source: source, cachette_operation: operation }, value: count })),
  });
  out.push({
    name: 'cachette_store_up',
    help: "1 while the store's reads (or writes) are reached, 0 while the circuit breaker skips them.",
    type: 'gauge',
    samples: [
      { labels: { ...labels, cachette_store_direction: 'read' }, value: health.reads === 'up' ? 1 : 0 },
      { labels: { ...labels, cachette_store_direction: 'write' }, value: health.writes === 'up' ? 1 : 0 },
    ],
  });
  const series = (histograms: Record<string, Histogram>, label: string) =>
    Object.entries(histograms).map(([value, histogram]) => ({
      labels: { ...labels, [label]: value },
      bounds: histogram.bounds,
      cumulative: histogram.cumulative(),
      sum: histogram.sum,
      count: histogram.count,
    }));
  out.push({
    name: 'cachette_lookup_duration_seconds',
    help: 'Hit and miss reads: the store round trip and the decode, since the exporter started.',
    type: 'histogram',
    samples: series(recorder.lookups, 'cachette_lookup_result'),
  });
  out.push({
    name: 'cachette_fill_duration_seconds',
    help: 'Factory time, foreground (false) and background refresh (true), since the exporter started.',
    type: 'histogram',
    samples: series(recorder.fills, 'cachette_fill_background'),
  });
  return out;
}

/** The exporter `prometheusText` started for each cache, with the options it was started with. */
const started = new WeakMap<Cache, { metrics: PrometheusMetrics; options: string }>();

/**
 * The exposition text of `cache`'s metrics. The first call starts {@link prometheusMetrics} for
 * that cache with `options` (later calls reuse it: their options must be the same or absent),
 * so its histograms cover what happened since the first scrape; call `prometheusMetrics` at
 * startup instead to cover everything.
 */
export function prometheusText(cache: Cache, options?: PrometheusOptions): string {
  let entry = started.get(cache);
  if (entry === undefined) {
    entry = { metrics: prometheusMetrics(cache, options), options: JSON.stringify(options ?? {}) };
    started.set(cache, entry);
  } else if (options !== undefined && JSON.stringify(options) !== entry.options) {
    throw new TypeError('prometheusText: this cache is already exported with other options (the first call decides them); use prometheusMetrics() for a second exporter');
  }
  return entry.metrics.text();
}
