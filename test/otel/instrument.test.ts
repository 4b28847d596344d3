// cachette/otel against the real OpenTelemetry SDK (in memory) and a real cache, on the memory
// store and on a real redis-server: what is recorded matches what happened, keys stay out of
// the telemetry unless asked for, and detach() stops recording.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache, type Cache } from '../../src/cache/create-cache.ts';
import { withCache } from '../../src/http/index.ts';
import { ATTRIBUTE, instrument, METRIC, SPAN, type InstrumentOptions } from '../../src/otel/index.ts';
import { engineTargets, uniqueNamespace } from '../cache/targets.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { FailingStore } from '../support/wrapped-stores.ts';
import { Telemetry } from './telemetry.ts';
import { capturedLogger } from '../support/captured-logger.ts';

const FACTORY_MS = 20;
let telemetry: Telemetry;
const open: Cache[] = [];

/** A cache on `store` (closed after the test), instrumented into this test's SDK. */
function instrumented(cache: Cache, options: InstrumentOptions = {}) {
  open.push(cache);
  return instrument(cache, { meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, ...options });
}

beforeAll(() => {
  // Node's context manager, as an application with the SDK installs it: spans follow promises.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});
afterEach(async () => {
  for (const cache of open.splice(0)) await cache.close();
  await telemetry?.shutdown();
});

for (const target of engineTargets) {
  describe(`cachette/otel on ${target.name}`, () => {
    it('counts hits, misses, stale serves, coalesced calls and fills, with durations in seconds', async () => {
      telemetry = new Telemetry();
      const clock = new FakeClock();
      const cache = createCache({ store: target.open(), namespace: uniqueNamespace('otel'), ttl: '1s', grace: '1m', clock });
      instrumented(cache);
      const slow = async () => {
        await sleep(FACTORY_MS);
        return 'value';
      };
      await cache.getOrSet('user:42', slow); // miss, fill
      await cache.idle();
      await cache.getOrSet('user:42', slow); // hit
      assert.equal(await cache.get('user:43'), undefined); // miss, no fill
      await Promise.all([cache.getOrSet('post:7', slow), cache.getOrSet('post:7', slow), cache.getOrSet('post:7', slow)]); // 1 miss, 2 coalesced, 1 fill
      await cache.idle();
      clock.advance(2_000);
      await cache.getOrSet('user:42', slow); // stale, background refresh
      await cache.idle();

      const stats = cache.stats();
      assert.equal(await telemetry.total(METRIC.lookups, { [ATTRIBUTE.lookupResult]: 'hit' }), stats.hits);
      assert.equal(await telemetry.total(METRIC.lookups, { [ATTRIBUTE.lookupResult]: 'miss' }), stats.misses);
      assert.equal(await telemetry.total(METRIC.lookups, { [ATTRIBUTE.lookupResult]: 'stale' }), 1);
      assert.deepEqual([stats.hits, stats.misses, stats.staleServed], [1, 3, 1]);
      assert.equal(await telemetry.total(METRIC.lookups, { [ATTRIBUTE.keyNamespace]: 'user' }), 4);
      assert.equal(await telemetry.total(METRIC.lookups, { [ATTRIBUTE.keyNamespace]: 'post' }), 1);
      assert.equal(await telemetry.total(METRIC.coalesced, { [ATTRIBUTE.keyNamespace]: 'post' }), 2);
      assert.equal(await telemetry.total(METRIC.refreshes), 1);
      assert.equal(await telemetry.total(METRIC.fills, { [ATTRIBUTE.fillBackground]: false }), 2);
      assert.equal(await telemetry.total(METRIC.fills, { [ATTRIBUTE.fillBackground]: true }), 1);

      // The histograms saw every event, in seconds: each fill slept FACTORY_MS.
      assert.equal(await telemetry.total(METRIC.lookupDuration), stats.hits + stats.misses);
      const fills = await telemetry.points(METRIC.fillDuration);
      assert.equal(
        fills.reduce((n, p) => n + p.count!, 0),
        3,
      );
      const fillSeconds = fills.reduce((n, p) => n + p.sum!, 0);
      assert.ok(fillSeconds >= (3 * (FACTORY_MS - 2)) / 1000 && fillSeconds < 60, `fill seconds ${fillSeconds}`);
      const lookupSeconds = (await telemetry.points(METRIC.lookupDuration)).reduce((n, p) => n + p.sum!, 0);
      assert.ok(lookupSeconds > 0 && lookupSeconds < 60, `lookup seconds ${lookupSeconds}`);

      // One span per factory run, named by namespace, never by key.
      const spans = telemetry.spans();
      assert.deepEqual(
        spans.map((s) => [s.name, s.attributes[ATTRIBUTE.keyNamespace], s.attributes[ATTRIBUTE.fillBackground]]),
        [
          [SPAN.fill, 'user', false],
          [SPAN.fill, 'post', false],
          [SPAN.fill, 'user', true],
        ],
      );
      for (const span of spans) {
        assert.equal(JSON.stringify([span.attributes, span.events]).includes('42'), false);
        const ms = (span.duration[0] * 1e9 + span.duration[1]) / 1e6;
        assert.ok(ms >= FACTORY_MS - 2, `span lasted ${ms} ms`);
      }
    });
  });
}

describe('cachette/otel: failures', () => {
  it('counts store errors by source and operation, and reports store health as a gauge', async () => {
    telemetry = new Telemetry();
    const store = new FailingStore(memoryStore());
    const cache = createCache({ store, ttl: '1m', circuitBreaker: { threshold: 2, cooldownMs: 60_000 }, logger: capturedLogger() });
    instrumented(cache);
    assert.equal(await telemetry.total(METRIC.storeUp, { [ATTRIBUTE.storeDirection]: 'read' }), 1);
    store.reads = 'fail';
    for (let i = 0; i < 3; i++) assert.equal(await cache.get(`user:${i}`), undefined);
    assert.equal(await telemetry.total(METRIC.errors, { [ATTRIBUTE.errorSource]: 'store', [ATTRIBUTE.operation]: 'get', [ATTRIBUTE.errorType]: 'Error' }), cache.stats().storeErrors);
    assert.equal(cache.stats().storeErrors, 2);
    assert.equal(await telemetry.total(METRIC.storeUp, { [ATTRIBUTE.storeDirection]: 'read' }), 0);
    assert.equal(await telemetry.total(METRIC.storeUp, { [ATTRIBUTE.storeDirection]: 'write' }), 1);
  });

  it('marks failed fills and refreshes, with the key redacted from the exception message', async () => {
    telemetry = new Telemetry();
    const clock = new FakeClock();
    const cache = createCache({ store: memoryStore(), ttl: '1s', grace: '1m', factoryTimeout: '30ms', clock });
    instrumented(cache);
    await assert.rejects(
      cache.getOrSet('user:42', () => new Promise(() => {})),
      { name: 'FactoryTimeoutError' },
    );
    await cache.getOrSet('post:42', () => 'v');
    await cache.idle();
    clock.advance(2_000);
    assert.equal(await cache.getOrSet('post:42', () => Promise.reject(new TypeError('origin down for post:42'))), 'v');
    await cache.idle();

    assert.equal(await telemetry.total(METRIC.fills, { [ATTRIBUTE.errorType]: 'FactoryTimeoutError', [ATTRIBUTE.fillBackground]: false }), 1);
    assert.equal(await telemetry.total(METRIC.fills, { [ATTRIBUTE.errorType]: 'TypeError', [ATTRIBUTE.fillBackground]: true }), 1);
    assert.equal(await telemetry.total(METRIC.errors, { [ATTRIBUTE.errorSource]: 'factory', [ATTRIBUTE.operation]: 'refresh', [ATTRIBUTE.errorType]: 'TypeError' }), 1);

    const failed = telemetry.spans().filter((s) => s.status.code === 2);
    assert.deepEqual(
      failed.map((s) => s.status.message),
      ['cachette: the factory for key "<user:…>" did not settle within 30 ms', 'origin down for <post:…>'],
    );
    assert.deepEqual(
      failed.map((s) => s.events[0]?.attributes?.['exception.type']),
      ['FactoryTimeoutError', 'TypeError'],
    );
    // Names and attributes only: an event's timestamp may hold the digits 42 by chance.
    assert.equal(JSON.stringify(telemetry.spans().map((s) => [s.attributes, s.events.map((e) => [e.name, e.attributes]), s.status])).includes('42'), false);
  });
});

describe('cachette/otel: keys, context, options, detach', () => {
  it('puts the whole key on spans only when asked, and nothing about keys with keys: "none"', async () => {
    telemetry = new Telemetry();
    const full = createCache({ store: memoryStore(), ttl: '1m' });
    instrumented(full, { keys: 'full' });
    await full.getOrSet('user:42', () => 'v');
    const none = createCache({ store: memoryStore(), ttl: '1m' });
    instrumented(none, { keys: 'none', attributes: { 'cachette.cache.name': 'anonymous' } });
    await none.getOrSet('user:42', () => 'v');
    const [fullSpan, noneSpan] = telemetry.spans();
    assert.equal(fullSpan!.attributes[ATTRIBUTE.key], 'user:42');
    assert.equal(fullSpan!.attributes[ATTRIBUTE.keyNamespace], 'user');
    assert.deepEqual(noneSpan!.attributes, { 'cachette.cache.name': 'anonymous', [ATTRIBUTE.fillBackground]: false });
    // Metrics never carry the key, even with keys: "full" (one series per key would be unbounded).
    const points = await telemetry.points(METRIC.lookups);
    assert.equal(
      points.some((p) => ATTRIBUTE.key in p.attributes),
      false,
    );
    assert.equal(await telemetry.total(METRIC.lookups, { 'cachette.cache.name': 'anonymous' }), 1);
  });

  it('takes a custom namespace rule', async () => {
    telemetry = new Telemetry();
    const cache = createCache({ store: memoryStore(), ttl: '1m' });
    instrumented(cache, { namespace: (key) => key.split('/')[0] });
    await cache.getOrSet('tenant-a/user/42', () => 'v');
    assert.equal(telemetry.spans()[0]!.attributes[ATTRIBUTE.keyNamespace], 'tenant-a');
  });

  it('parents the fill span under the span of the call that started it', async () => {
    telemetry = new Telemetry();
    const cache = createCache({ store: memoryStore(), ttl: '1m' });
    instrumented(cache);
    const tracer = telemetry.tracerProvider.getTracer('test');
    const request = tracer.startSpan('GET /users/42');
    await context.with(trace.setSpan(context.active(), request), () => cache.getOrSet('user:42', () => 'v'));
    request.end();
    const fill = telemetry.spans().find((s) => s.name === SPAN.fill)!;
    assert.equal(fill.parentSpanContext?.spanId, request.spanContext().spanId);
    assert.equal(fill.spanContext().traceId, request.spanContext().traceId);
  });

  it('listens only for what it records, and detach() stops recording', async () => {
    // Delta reads: each collection holds only what was recorded or observed since the last one.
    telemetry = new Telemetry('delta');
    const cache = createCache({ store: memoryStore(), ttl: '1m' });
    const spansOnly = instrumented(cache, { metrics: false });
    assert.deepEqual(
      (['hit', 'miss', 'fill', 'error'] as const).map((t) => cache.events.listens(t)),
      [false, false, true, false],
    );
    spansOnly.detach();
    spansOnly.detach();
    assert.equal(cache.events.listens('fill'), false);

    const both = instrumented(cache);
    await cache.getOrSet('user:1', () => 'v');
    await cache.idle();
    assert.deepEqual([await telemetry.total(METRIC.lookups), telemetry.spans().length], [1, 1]);
    assert.equal((await telemetry.points(METRIC.storeUp)).length, 2, 'the health gauge is observed while attached');
    both.detach();
    for (const type of ['hit', 'miss', 'stale', 'fill', 'error', 'coalesced', 'refresh', 'corrupt'] as const) assert.equal(cache.events.listens(type), false, type);
    await cache.getOrSet('user:2', () => 'v');
    await cache.getOrSet('user:1', () => 'v');
    const after = await telemetry.metrics();
    assert.deepEqual(
      [...after.values()].map((metric) => metric.dataPoints.length).filter((n) => n > 0),
      [],
      'no measurement and no gauge observation after detach',
    );
    assert.equal(telemetry.spans().length, 1);
  });

  it('instruments the cache inside a withCache handler', async () => {
    telemetry = new Telemetry();
    const handler = withCache(async () => new Response('hello'), { store: memoryStore(), ttl: '1m' });
    open.push(handler.httpCache.cache);
    instrument(handler, { meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
    await (await handler(new Request('http://example.test/a'))).text();
    await handler.idle();
    await (await handler(new Request('http://example.test/a'))).text();
    assert.ok((await telemetry.total(METRIC.lookups, { [ATTRIBUTE.lookupResult]: 'hit', [ATTRIBUTE.keyNamespace]: 'u' })) >= 1);
  });

  it('refuses unknown options and bad values with a clear TypeError', () => {
    const cache = createCache({ store: memoryStore(), ttl: '1m' });
    open.push(cache);
    assert.throws(() => instrument(cache, { key: 'full' } as InstrumentOptions), { name: 'TypeError', message: /unknown option "key" \(did you mean "keys"\?\)/ });
    assert.throws(() => instrument(cache, { keys: 'raw' as 'full' }), { name: 'TypeError', message: /"keys" must be one of namespace, full, none; got "raw"/ });
    assert.throws(() => instrument(cache, { namespace: 'user' as unknown as () => string }), { name: 'TypeError', message: /"namespace" must be a function/ });
    assert.throws(() => instrument({} as Cache), { name: 'TypeError', message: /pass a cache from createCache, an HttpCache, or a handler or middleware with an httpCache/ });
    telemetry = new Telemetry();
  });
});
