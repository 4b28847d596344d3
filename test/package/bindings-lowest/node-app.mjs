// The packed package with the lowest Koa 2 and 3 and the lowest h3 v2 (installed by
// bindings-lowest.pack.ts from the npm registry), on Node: a miss, then a hit, then a purge, on
// each. Prints one "ok <peer>@<version>" line per check, then "node ok".
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { H3, toNodeHandler } from 'h3';
import Koa2 from 'koa';
import Koa3 from 'koa3';
import { memoryStore } from 'cachette/adapters/memory';
import { cache as h3Cache } from 'cachette/h3';
import { cache as koaCache } from 'cachette/koa';
import { missHitPurge } from './miss-hit.mjs';

const ok = (peer) => console.log(`ok ${peer}@${JSON.parse(readFileSync(new URL(`./node_modules/${peer}/package.json`, import.meta.url), 'utf8')).version}`);

/** Listens with `listener` on loopback, checks /api/items through the binding, and closes both. */
async function onServer(listener, middleware, calls) {
  const server = createServer(listener);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await missHitPurge(`http://127.0.0.1:${server.address().port}/api/items?q=1`, middleware, calls);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await middleware.close();
  }
}

for (const [name, Koa] of [
  ['koa', Koa2],
  ['koa3', Koa3],
]) {
  let calls = 0;
  const app = new Koa();
  const middleware = koaCache({ store: memoryStore(), ttl: '30s' });
  app.use(middleware);
  app.use(async (ctx) => {
    ctx.body = { n: ++calls, q: ctx.query.q ?? null };
  });
  await onServer(app.callback(), middleware, () => calls);
  ok(name);
}

{
  let calls = 0;
  const app = new H3();
  const middleware = h3Cache({ store: memoryStore(), ttl: '30s' });
  app.use(middleware);
  app.get('/api/items', () => ({ n: ++calls }));
  await onServer(toNodeHandler(app), middleware, () => calls);
  ok('h3');
}

console.log('node ok');
