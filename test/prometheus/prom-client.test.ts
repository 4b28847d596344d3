/**
 * cachette/prometheus's prom-client collector (issue 31, item 7) in a real prom-client registry:
 * the same series and values as the text exporter, one snapshot per scrape, OpenMetrics output,
 * clean removal, and clear errors for what is not a registry.
 */
import assert from 'node:assert/strict';
import { AggregatorRegistry, Registry } from 'prom-client';
import { describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';
import { prometheusCollector, prometheusMetrics } from '../../src/prometheus/index.ts';
import { parsePrometheusText as parse } from '../support/prometheus-text.ts';

const newCache = () => createCache({ store: memoryStore(), logger: false });

describe('prometheusCollector', () => {
  it("puts the text exporter's series, with the same values, into a prom-client registry", async () => {
    const cache = newCache();
    const registry = new Registry();
    const collector = prometheusCollector(cache, registry, { labels: { cache: 'pages' } });
    const text = prometheusMetrics(cache, { labels: { cache: 'pages' } });
    for (let i = 0; i < 12; i++) await cache.getOrSet(`k${i % 5}`, async () => i);
    const fromRegistry = parse(await registry.metrics());
    const fromText = parse(text.text());
    assert.deepEqual([...fromRegistry.keys()].sort(), [...fromText.keys()].sort(), 'the same series');
    assert.deepEqual(Object.fromEntries(fromRegistry), Object.fromEntries(fromText), 'with the same values');
    assert.equal(fromRegistry.get('cachette_lookups_total{cache="pages",cachette_lookup_result="hit"}'), 7);
    assert.equal(fromRegistry.get('cachette_lookup_duration_seconds_count{cache="pages",cachette_lookup_result="miss"}'), 5);
    assert.equal(fromRegistry.get('cachette_lookup_duration_seconds_bucket{cache="pages",cachette_lookup_result="miss",le="+Inf"}'), 5);
    assert.deepEqual(
      collector.names,
      registry.getMetricsAsArray().map((metric) => metric.name),
    );
    // JSON too (prom-client's cluster aggregation reads it): one value per series.
    const json = await registry.getMetricsAsJSON();
    const lookups = json.find((metric) => metric.name === 'cachette_lookups_total');
    assert.deepEqual(
      lookups?.values.map((value) => [value.labels.cachette_lookup_result, value.value]),
      [
        ['hit', 7],
        ['miss', 5],
        ['stale', 0],
      ],
    );
    text.stop();
    collector.stop();
  });

  it("adds up counters across prom-client's cluster workers, and a store is up only where all of them reach it", async () => {
    const workers = [newCache(), newCache()];
    const registries = workers.map((cache) => {
      const registry = new Registry();
      prometheusCollector(cache, registry);
      return registry;
    });
    await workers[0]!.getOrSet('a', async () => 1);
    await workers[0]!.getOrSet('a', async () => 1);
    await workers[1]!.getOrSet('a', async () => 1);
    await workers[1]!.getOrSet('a', async () => 1);
    const merged = AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON())));
    const samples = parse(await merged.metrics());
    assert.equal(samples.get('cachette_lookups_total{cachette_lookup_result="hit"}'), 2);
    assert.equal(samples.get('cachette_lookup_duration_seconds_count{cachette_lookup_result="miss"}'), 2);
    assert.equal(samples.get('cachette_store_up{cachette_store_direction="read"}'), 1, 'min, not a sum of two');
  });

  it('reads stats() once per scrape, so the families of one response agree', async () => {
    const cache = newCache();
    let reads = 0;
    const stats = cache.stats.bind(cache);
    cache.stats = () => {
      reads++;
      return stats();
    };
    const registry = new Registry();
    prometheusCollector(cache, registry);
    reads = 0;
    await registry.metrics();
    assert.equal(reads, 1, 'one stats() for every family of the scrape');
    await registry.metrics();
    assert.equal(reads, 2, 'and a new one for the next scrape');
  });

  it('writes OpenMetrics when the registry does, and resetMetrics leaves the counters to stats()', async () => {
    const cache = newCache();
    const registry = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    prometheusCollector(cache, registry);
    await cache.getOrSet('a', async () => 1);
    await cache.getOrSet('a', async () => 1);
    const text = await registry.metrics();
    assert.match(text, /^# TYPE cachette_lookups counter$/m, 'OpenMetrics names the counter family without _total');
    assert.match(text, /^cachette_lookups_total\{cachette_lookup_result="hit"\} 1$/m);
    assert.ok(text.endsWith('# EOF\n'));
    registry.resetMetrics();
    assert.match(await registry.metrics(), /^cachette_lookups_total\{cachette_lookup_result="hit"\} 1$/m, 'a reset does not touch what stats() counts');
  });

  it('stop() removes every metric, and a name taken already fails with nothing left registered', async () => {
    const cache = newCache();
    const registry = new Registry();
    const collector = prometheusCollector(cache, registry);
    assert.ok(registry.getSingleMetric('cachette_fills_total'));
    collector.stop();
    assert.equal(registry.getMetricsAsArray().length, 0);
    const first = prometheusCollector(cache, registry);
    assert.throws(() => prometheusCollector(cache, registry), /already been registered/);
    assert.equal(registry.getMetricsAsArray().length, first.names.length, 'the failed second collector left nothing behind');
    first.stop();
    assert.throws(() => prometheusCollector(cache, {} as never), /the second argument must be a prom-client Registry/);
    assert.throws(() => prometheusCollector({} as never, registry), /prometheusCollector: the first argument must be a cache made by createCache\(\)/);
    assert.throws(() => prometheusCollector(cache, registry, { labels: { 'bad-name': 'x' } }), /prometheusCollector: "bad-name" is not a Prometheus label name/);
    assert.equal(registry.getMetricsAsArray().length, 0);
  });
});
