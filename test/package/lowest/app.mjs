// The packed package with the lowest version of every peer it declares (installed by
// lowest-peers.pack.ts from the npm registry): a small app per peer, each asserting what it
// saw. Prints one "ok <peer>" line per check, then "lowest ok". REDIS_URL names a live server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import express4 from 'express';
import express5 from 'express5';
import fastify4 from 'fastify';
import fastify5 from 'fastify5';
import { Hono } from 'hono';
import { createCache } from 'cachette';
import { valkeyStore } from 'cachette/adapters/valkey';
import { memoryStore } from 'cachette/adapters/memory';
import { upstashStore } from 'cachette/adapters/upstash';
import { cache as expressCache, storeFromEnv } from 'cachette/express';
import fastifyCache, { storeFromEnv as fastifyStoreFromEnv } from 'cachette/fastify';
import { cache as honoCache } from 'cachette/hono';
import { serve } from 'cachette/node';
import { startBridge } from 'cachette/node/bridge';
import { instrument } from 'cachette/otel';

const redisUrl = process.env.REDIS_URL;
assert.ok(redisUrl, 'REDIS_URL is set');
const run = `lowest-${process.pid}`;
/** Says that `peer` passed, with the version that is installed (read from its folder: not every version exports its package.json). */
const ok = (peer) => console.log(`ok ${peer}@${JSON.parse(readFileSync(new URL(`./node_modules/${peer}/package.json`, import.meta.url), 'utf8')).version.replace(/^v/, '')}`);

/** Two GETs of `url`: the miss, then the hit (their bodies equal, the origin called once). */
async function missThenHit(url, calls) {
  const miss = await fetch(url);
  const first = await miss.text();
  assert.match(miss.headers.get('cache-status') ?? '', /fwd=uri-miss/, `miss at ${url}`);
  const hit = await fetch(url);
  assert.equal(await hit.text(), first);
  assert.match(hit.headers.get('cache-status') ?? '', /; hit/, `hit at ${url}`);
  assert.equal(calls(), 1);
  return hit;
}

// Hono middleware on the lowest hono, served by cachette/node through the lowest @hono/node-server.
{
  let calls = 0;
  const app = new Hono();
  const middleware = honoCache({ store: memoryStore(), ttl: '30s', app });
  app.use('/api/*', middleware);
  app.get('/api/time', (c) => {
    calls++;
    return c.json({ n: calls });
  });
  const server = await serve(app.fetch, { port: 0 });
  try {
    const hit = await missThenHit(`${server.url}/api/time`, () => calls);
    assert.match(hit.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await middleware.purge({ url: `${server.url}/api/time` }), 1);
    assert.deepEqual(await (await fetch(`${server.url}/api/time`)).json(), { n: 2 });
  } finally {
    await server.close();
  }
  ok('hono');
  ok('@hono/node-server');
}

// Express 4 and 5, with storeFromEnv from cachette/express (no Hono needed).
for (const [name, express] of [
  ['express', express4],
  ['express5', express5],
]) {
  let calls = 0;
  const app = express();
  app.use('/api', expressCache({ store: await storeFromEnv({ store: 'memory', log: false }), ttl: '30s' }));
  app.get('/api/items', (req, res) => {
    calls++;
    res.json({ n: calls, query: req.query.q ?? null });
  });
  const server = createServer(app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await missThenHit(`http://127.0.0.1:${server.address().port}/api/items?q=1`, () => calls);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  ok(name);
}

// The Fastify plugin on the lowest Fastify 4 and 5, with storeFromEnv from cachette/fastify.
for (const [name, Fastify] of [
  ['fastify', fastify4],
  ['fastify5', fastify5],
]) {
  let calls = 0;
  const app = Fastify();
  await app.register(fastifyCache, { store: await fastifyStoreFromEnv({ store: 'memory', log: false }), ttl: '30s' });
  app.get('/api/items', async (request) => ({ n: ++calls, query: request.query.q ?? null }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${app.server.address().port}/api/items?q=1`;
    await missThenHit(url, () => calls);
    assert.equal(await app.cache.purge({ url }), 1);
  } finally {
    await app.close();
  }
  ok(name);
}

// Valkey through the lowest iovalkey: values, a batch, a counter, tags (its scripts).
{
  const cache = createCache({ store: valkeyStore(redisUrl), prefix: run, logger: false, strict: true });
  try {
    assert.equal(await cache.set('a', { when: new Date(0) }, { ttl: '1m', tags: ['t'] }), true);
    assert.deepEqual(await cache.get('a'), { when: new Date(0) });
    assert.deepEqual(await cache.getMany(['a', 'absent']), [{ when: new Date(0) }, undefined]);
    assert.equal(await cache.getOrSet('b', () => 'filled'), 'filled');
    assert.equal(await cache.incr('n', 2), 2);
    assert.equal(await cache.invalidateTags(['t']), true);
    assert.equal(await cache.get('a'), undefined);
  } finally {
    await cache.close();
  }
  ok('iovalkey');
}

// Upstash through the lowest @upstash/redis, over cachette's Upstash-compatible bridge.
{
  const bridge = await startBridge({ redisUrl });
  const cache = createCache({ store: upstashStore({ url: bridge.url, token: bridge.token }), prefix: `${run}-up`, logger: false, strict: true });
  try {
    assert.equal(await cache.set('a', new Uint8Array([0, 1, 255]), { tags: ['t'] }), true);
    assert.deepEqual(await cache.get('a'), new Uint8Array([0, 1, 255]));
    assert.deepEqual(await cache.getMany(['a', 'absent']), [new Uint8Array([0, 1, 255]), undefined]);
    assert.equal(await cache.incr('n'), 1);
    assert.equal(await cache.invalidateTags(['t']), true);
    assert.equal(await cache.get('a'), undefined);
  } finally {
    await cache.close();
    await bridge.close();
  }
  ok('@upstash/redis');
}

// OpenTelemetry through the lowest @opentelemetry/api: a meter and a tracer that record calls.
{
  const recorded = [];
  const instrumentLike = (kind) => (name) => ({
    add: (value) => recorded.push(`${kind} ${name} ${value}`),
    record: () => recorded.push(`${kind} ${name}`),
    addCallback() {},
    removeCallback() {},
  });
  const meterProvider = {
    getMeter: () => ({
      createCounter: instrumentLike('counter'),
      createHistogram: instrumentLike('histogram'),
      createObservableGauge: instrumentLike('gauge'),
      createUpDownCounter: instrumentLike('updown'),
      createObservableCounter: instrumentLike('ocounter'),
      createObservableUpDownCounter: instrumentLike('oupdown'),
      addBatchObservableCallback() {},
      removeBatchObservableCallback() {},
    }),
  };
  const tracerProvider = { getTracer: () => ({ startSpan: (name) => ({ setStatus() {}, setAttribute() {}, end: () => recorded.push(`span ${name}`) }) }) };
  const cache = createCache({ store: memoryStore(), logger: false });
  const telemetry = instrument(cache, { meterProvider, tracerProvider });
  await cache.getOrSet('k', () => 1);
  await cache.get('k');
  telemetry.detach();
  // And with the API's own global providers (no SDK: no-ops), as most apps start.
  instrument(cache).detach();
  await cache.close();
  assert.ok(recorded.includes('span cachette.fill'), recorded.join('\n'));
  assert.ok(
    recorded.some((line) => line.startsWith('counter cachette.lookups')),
    recorded.join('\n'),
  );
  ok('@opentelemetry/api');
}

console.log('lowest ok');
