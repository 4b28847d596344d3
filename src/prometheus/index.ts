/**
 * cachette/prometheus: the cache's `stats()`, health and latency histograms in the Prometheus
 * text format (`prometheusText`, `prometheusMetrics`), or registered in a prom-client registry
 * (`prometheusCollector`). Runtime-neutral; documented in docs/observability.md, with a Grafana
 * dashboard in docs/grafana-dashboard.json.
 */
export { PROMETHEUS_CONTENT_TYPE, type PrometheusMetrics, type PrometheusOptions, prometheusMetrics, prometheusText } from './exporter.ts';
export { DEFAULT_BUCKETS } from './histogram.ts';
export { type PromClientMetric, type PromClientRegistry, type PromClientValue, type PrometheusCollector, prometheusCollector } from './prom-client.ts';
