/**
 * cachette/prometheus (issue 31, item 7): the text format of a real cache's counters, health and
 * latency histograms, checked line by line against the exposition format's grammar and against
 * the cache's own stats().
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';
import { PROMETHEUS_CONTENT_TYPE, prometheusMetrics, prometheusText } from '../../src/prometheus/index.ts';
import { formatFamilies } from '../../src/prometheus/text-format.ts';
import { faultyStore } from '../../src/testing/index.ts';
import { parsePrometheusText as parse } from '../support/prometheus-text.ts';

describe('prometheusText', () => {
  it("exports a real cache's stats, health and latencies, in the text format", async () => {
    const store = faultyStore(memoryStore());
    const cache = createCache({ store, logger: false });
    const metrics = prometheusMetrics(cache, { labels: { cache: 'pages' } });
    for (let i = 0; i < 10; i++) await cache.getOrSet(`k${i % 4}`, async () => i);
    const outage = store.inject({ ops: ['get'], error: new Error('down') });
    await cache.get('k0');
    outage.remove();
    const samples = parse(metrics.text());
    const stats = cache.stats();
    assert.equal(samples.get('cachette_lookups_total{cache="pages",cachette_lookup_result="hit"}'), stats.hits);
    assert.equal(samples.get('cachette_lookups_total{cache="pages",cachette_lookup_result="miss"}'), stats.misses);
    assert.equal(samples.get('cachette_fills_total{cache="pages"}'), 4);
    assert.equal(samples.get('cachette_store_errors_total{cache="pages"}'), stats.storeErrors);
    assert.ok(stats.storeErrors >= 1 && stats.hits === 6);
    assert.equal(samples.get('cachette_errors_total{cache="pages",cachette_error_source="store",cachette_operation="get"}'), 1);
    assert.equal(samples.get('cachette_store_up{cache="pages",cachette_store_direction="read"}'), cache.health().reads === 'up' ? 1 : 0);
    // Histograms: cumulative buckets, +Inf equal to the count, the count equal to the events.
    const hitBuckets = [...samples].filter(([series]) => series.startsWith('cachette_lookup_duration_seconds_bucket{cache="pages",cachette_lookup_result="hit"'));
    assert.ok(hitBuckets.length > 5);
    for (let i = 1; i < hitBuckets.length; i++) assert.ok(hitBuckets[i]![1] >= hitBuckets[i - 1]![1], 'cumulative');
    assert.equal(hitBuckets.at(-1)![0], 'cachette_lookup_duration_seconds_bucket{cache="pages",cachette_lookup_result="hit",le="+Inf"}');
    assert.equal(hitBuckets.at(-1)![1], stats.hits);
    assert.equal(samples.get('cachette_lookup_duration_seconds_count{cache="pages",cachette_lookup_result="hit"}'), stats.hits);
    assert.equal(samples.get('cachette_fill_duration_seconds_count{cache="pages",cachette_fill_background="false"}'), 4);
    metrics.stop();
    await cache.get('k1');
    assert.equal(parse(metrics.text()).get('cachette_lookup_duration_seconds_count{cache="pages",cachette_lookup_result="hit"}'), stats.hits, 'stopped: no more observations');
    assert.equal(PROMETHEUS_CONTENT_TYPE, 'text/plain; version=0.0.4; charset=utf-8');
    await cache.close();
  });

  it('starts on the first call and keeps its options; other options are refused', async () => {
    const cache = createCache({ store: memoryStore() });
    parse(prometheusText(cache, { labels: { app: 'a' } }));
    await cache.get('x');
    const samples = parse(prometheusText(cache));
    assert.equal(samples.get('cachette_lookup_duration_seconds_count{app="a",cachette_lookup_result="miss"}'), 1);
    assert.throws(() => prometheusText(cache, { labels: { app: 'b' } }), /already exported with other options/);
    await cache.close();
  });

  it('escapes label values and refuses bad labels and buckets', async () => {
    const cache = createCache({ store: memoryStore() });
    const text = prometheusMetrics(cache, { labels: { note: 'a "quoted"\\ path\nnext' }, buckets: [0.001, 1] }).text();
    assert.ok(text.includes('note="a \\"quoted\\"\\\\ path\\nnext"'), text.slice(0, 300));
    parse(text);
    assert.ok(text.includes('le="0.001"') && !text.includes('le="0.0001"'));
    assert.throws(() => prometheusMetrics(cache, { labels: { 'bad-name': 'x' } }), /not a Prometheus label name/);
    assert.throws(() => prometheusMetrics(cache, { labels: { __reserved: 'x' } }), /not a Prometheus label name/);
    assert.throws(() => prometheusMetrics(cache, { labels: { n: 1 as never } }), /must be a string/);
    assert.throws(() => prometheusMetrics(cache, { buckets: [1, 0.5] }), /ascending/);
    assert.throws(() => prometheusMetrics(cache, { buckets: [] }), /non-empty/);
    assert.throws(() => prometheusMetrics(cache, { buckets: [Infinity] }), /finite/);
    assert.throws(() => prometheusMetrics(cache, { bucket: [1] } as never), /bucket/);
    assert.throws(() => prometheusMetrics({} as never), /createCache/);
    await cache.close();
  });

  it('writes special numbers as the format spells them', () => {
    const text = formatFamilies([
      {
        name: 'x',
        help: 'a\\b\nc',
        type: 'gauge',
        samples: [
          { labels: {}, value: Infinity },
          { labels: { k: 'v' }, value: Number.NaN },
        ],
      },
    ]);
    assert.equal(text, '# HELP x a\\\\b\\nc\n# TYPE x gauge\nx +Inf\nx{k="v"} NaN\n');
  });
});

describe('docs/grafana-dashboard.json', () => {
  it('queries only series and labels the exporter writes', async () => {
    const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/grafana-dashboard.json'), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const cache = createCache({ store: memoryStore() });
    const series = [...parse(prometheusMetrics(cache, { labels: { cache: 'x' } }).text()).keys()];
    const names = new Set(series.map((s) => s.replace(/\{.*$/, '')));
    const labels = new Set(series.flatMap((s) => [...s.matchAll(/([a-zA-Z_]+)="/g)].map((m) => m[1]!)));
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(6);
    for (const expr of exprs) {
      // Every metric the dashboard names has a selector ({cache=~…}); label names never do.
      const used = [...expr.matchAll(/(cachette_[a-z0-9_]+)\{/g)].map((m) => m[1]!);
      expect(used.length, expr).toBeGreaterThan(0);
      for (const name of used) expect(names.has(name), `${name} in ${expr}`).toBe(true);
      for (const [, list] of expr.matchAll(/by \(([^)]*)\)/g)) for (const label of list!.split(',').map((l) => l.trim())) expect(labels.has(label), `${label} in ${expr}`).toBe(true);
      for (const [, label] of expr.matchAll(/[{,]([a-zA-Z_]+)=~?"/g)) expect(labels.has(label!), `${label} in ${expr}`).toBe(true);
    }
    await cache.close();
  });
});
