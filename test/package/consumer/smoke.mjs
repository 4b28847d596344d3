// Runs against the installed tarball, as an app would: every entry point loads, the cache,
// wrap, the Express middleware, the Fastify plugin and serve() work, and the process exits by itself.
import assert from 'node:assert/strict';
import express from 'express';
import Fastify from 'fastify';
import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { cache } from 'cachette/express';
import fastifyCache from 'cachette/fastify';
import { serve } from 'cachette/node';

for (const entry of [
  'cachette/http',
  'cachette/hono',
  'cachette/workers',
  'cachette/workers/upstash',
  'cachette/otel',
  'cachette/bun',
  'cachette/deno',
  'cachette/adapters/valkey',
  'cachette/adapters/bun-redis',
  'cachette/adapters/upstash',
  'cachette/adapters/cloudflare-kv',
]) {
  await import(entry);
}

const store = memoryStore();
const fragments = createCache({ store, ttl: '30s' });
let calls = 0;
const double = fragments.wrap(async function double(x) {
  calls++;
  return x * 2;
});
assert.equal(await double(21), 42);
assert.equal(await double(21), 42);
assert.equal(calls, 1);

const responses = cache({ store, ttl: '30s' });
const app = express();
app.use(responses);
app.get('/', (_req, res) => void res.json({ calls: ++calls }));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
assert.equal(await (await fetch(base)).text(), '{"calls":2}');
await responses.idle();
const hit = await fetch(base);
assert.equal(await hit.text(), '{"calls":2}');
assert.match(hit.headers.get('cache-status'), /; hit/);
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await responses.close();

const fastify = Fastify();
await fastify.register(fastifyCache, { store, ttl: '30s' });
fastify.get('/', async () => ({ calls: ++calls }));
const injected = () => fastify.inject({ url: '/', headers: { host: 'smoke.test' } });
assert.equal((await injected()).body, '{"calls":3}');
await fastify.cache.idle();
const fastifyHit = await injected();
assert.equal(fastifyHit.body, '{"calls":3}');
assert.match(fastifyHit.headers['cache-status'], /; hit/);
await fastify.close();

const served = await serve(async () => new Response('hi', { headers: { 'cache-control': 'max-age=60' } }), { port: 0, cache: { log: false } });
await (await fetch(served.url)).text();
await served.cache.idle();
assert.match((await fetch(served.url)).headers.get('cache-status'), /; hit/);
await served.close();

await fragments.close();
await store.close();
console.log('smoke ok');
