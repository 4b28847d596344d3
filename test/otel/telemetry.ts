/**
 * The real OpenTelemetry SDK, in memory: a meter provider whose metrics are read on demand and
 * a tracer provider that keeps finished spans, plus readers that turn them into plain numbers.
 */
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Attributes } from '@opentelemetry/api';

/** One data point, flattened: its attributes, and its value (a sum, a gauge, or a histogram's count and sum). */
export interface Point {
  attributes: Attributes;
  value: number;
  count?: number;
  sum?: number;
}

/**
 * An SDK pair recording into memory. Cumulative by default (each read sees everything so far);
 * `delta` reads see only what was recorded or observed since the previous read.
 */
export class Telemetry {
  readonly #exporter: InMemoryMetricExporter;
  readonly #reader: PeriodicExportingMetricReader;
  readonly meterProvider: MeterProvider;
  readonly spanExporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spanExporter)] });

  constructor(temporality: 'cumulative' | 'delta' = 'cumulative') {
    this.#exporter = new InMemoryMetricExporter(temporality === 'delta' ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE);
    // Exports only when flushed: the interval is far longer than any test.
    this.#reader = new PeriodicExportingMetricReader({ exporter: this.#exporter, exportIntervalMillis: 3_600_000 });
    this.meterProvider = new MeterProvider({ readers: [this.#reader] });
  }

  /** Every metric recorded so far, by name. */
  async metrics(): Promise<Map<string, MetricData>> {
    this.#exporter.reset();
    await this.#reader.forceFlush();
    const byName = new Map<string, MetricData>();
    for (const resource of this.#exporter.getMetrics()) {
      for (const scope of resource.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
    }
    return byName;
  }

  /** The points of metric `name` (none when it never recorded). */
  async points(name: string): Promise<Point[]> {
    const metric = (await this.metrics()).get(name);
    if (!metric) return [];
    return metric.dataPoints.map((point) => {
      if (typeof point.value === 'number') return { attributes: point.attributes, value: point.value };
      const histogram = (point as HistogramMetricData['dataPoints'][number]).value;
      return { attributes: point.attributes, value: histogram.count, count: histogram.count, sum: histogram.sum ?? 0 };
    });
  }

  /** The sum of metric `name`'s values over the points whose attributes include `match`. */
  async total(name: string, match: Attributes = {}): Promise<number> {
    return (await this.points(name)).filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + p.value, 0);
  }

  /** Finished spans. */
  spans(): ReadableSpan[] {
    return this.spanExporter.getFinishedSpans();
  }

  async shutdown(): Promise<void> {
    await this.meterProvider.shutdown();
    await this.tracerProvider.shutdown();
  }
}
