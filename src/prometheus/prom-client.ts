/**
 * The cache's metrics in a prom-client registry (issue 31, item 7), for an app that already
 * serves prom-client's `register.metrics()`: the same families as `prometheusText`, registered
 * as metrics of that registry, so one `/metrics` response, prom-client's cluster aggregation
 * and its OpenMetrics output carry them. Nothing here imports prom-client: the registry is
 * reached through two of its methods (`registerMetric`,
 * `removeSingleMetric`), and each metric is the plain object its registry reads (`get()`
 * resolving to name, help, type and values).
 */
import type { Cache } from '../cache/types.ts';
import { type MetricsRecording, type PrometheusOptions, recordMetrics } from './exporter.ts';
import type { Family } from './text-format.ts';

/** A prom-client `Registry`, as far as the collector uses it. */
export interface PromClientRegistry {
  /**
   * prom-client types the parameter as its own metric classes, though its registry reads only
   * what {@link PromClientMetric} has: `never` lets its `Registry` be passed as it is.
   */
  registerMetric(metric: never): void;
  removeSingleMetric(name: string): void;
}

/** One value of a metric as prom-client's registry formats it. */
export interface PromClientValue {
  value: number;
  labels: Record<string, string | number>;
  /** Set for a histogram's `_bucket`, `_sum` and `_count` lines. */
  metricName?: string;
}

/** A metric as prom-client's registry reads it (`registry.metrics()`, `getMetricsAsJSON()`). */
export interface PromClientMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** How prom-client's `AggregatorRegistry` combines workers' values: counts add up; a store is up only where every worker reaches it. */
  aggregator: 'sum' | 'min';
  get(): Promise<{ name: string; help: string; type: PromClientMetric['type']; aggregator: 'sum' | 'min'; values: PromClientValue[] }>;
  /** Called by `registry.resetMetrics()`: the counters come from `stats()`, which cannot be reset, so this does nothing. */
  reset(): void;
}

/** What {@link prometheusCollector} registered: `stop()` removes it from the registry. */
export interface PrometheusCollector {
  /** The names registered, in the order `prometheusText` writes them. */
  readonly names: readonly string[];
  /** Stops listening to the cache's events and removes the metrics from the registry. */
  stop(): void;
}

/** A family's samples as prom-client values: histograms spelled out as `_bucket` (with `le`), `_sum`, `_count`. */
function valuesOf(family: Family): PromClientValue[] {
  if (family.type !== 'histogram') return family.samples.map(({ labels, value }) => ({ value, labels: { ...labels } }));
  const values: PromClientValue[] = [];
  for (const series of family.samples) {
    const bucket = `${family.name}_bucket`;
    for (let i = 0; i < series.bounds.length; i++) values.push({ value: series.cumulative[i]!, labels: { ...series.labels, le: series.bounds[i]! }, metricName: bucket });
    values.push({ value: series.count, labels: { ...series.labels, le: '+Inf' }, metricName: bucket });
    values.push({ value: series.sum, labels: { ...series.labels }, metricName: `${family.name}_sum` });
    values.push({ value: series.count, labels: { ...series.labels }, metricName: `${family.name}_count` });
  }
  return values;
}

/** One snapshot of the families for all metrics read in one scrape, so they agree with each other. */
function snapshots(recording: MetricsRecording): () => Map<string, Family> {
  let current: Map<string, Family> | undefined;
  return () => {
    if (current === undefined) {
      current = new Map(recording.families().map((family) => [family.name, family]));
      // A registry asks every metric in one synchronous pass; the next scrape takes a new snapshot.
      queueMicrotask(() => {
        current = undefined;
      });
    }
    return current;
  };
}

/**
 * Registers `cache`'s metrics (the families of `prometheusText`: counters from `stats()`, health,
 * latency histograms from now on) in a prom-client `registry`, e.g. prom-client's default
 * `register`. Throws prom-client's own error when a name is already registered there.
 *
 * ```ts
 * import { register } from 'prom-client';
 * prometheusCollector(cache, register, { labels: { cache: 'pages' } });
 * app.get('/metrics', async () => new Response(await register.metrics(), { headers: { 'content-type': register.contentType } }));
 * ```
 */
export function prometheusCollector(cache: Cache, registry: PromClientRegistry, options: PrometheusOptions = {}): PrometheusCollector {
  if (typeof registry?.registerMetric !== 'function' || typeof registry.removeSingleMetric !== 'function')
    throw new TypeError("prometheusCollector: the second argument must be a prom-client Registry (prom-client's `register`, or `new Registry()`)");
  const recording = recordMetrics(cache, options, 'prometheusCollector');
  const register = registry.registerMetric.bind(registry) as (metric: PromClientMetric) => void;
  const snapshot = snapshots(recording);
  const names: string[] = [];
  try {
    for (const family of recording.families()) {
      const { name, help, type } = family;
      const aggregator = type === 'gauge' ? 'min' : 'sum';
      const metric: PromClientMetric = {
        name,
        help,
        type,
        aggregator,
        async get() {
          const now = snapshot().get(name);
          // `metric.name`: prom-client renames counters in place for OpenMetrics output (no `_total`).
          return { name: metric.name, help, type, aggregator, values: now === undefined ? [] : valuesOf(now) };
        },
        reset() {},
      };
      register(metric);
      names.push(name);
    }
  } catch (error) {
    for (const name of names) registry.removeSingleMetric(name);
    recording.stop();
    throw error;
  }
  return {
    names,
    stop() {
      recording.stop();
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}
