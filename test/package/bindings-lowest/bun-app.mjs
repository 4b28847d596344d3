// The packed package with the lowest Elysia it supports (installed by bindings-lowest.pack.ts
// from the npm registry), on Bun: a miss, then a hit, then a purge. Prints
// "ok elysia@<version>", then "bun ok".
import { readFileSync } from 'node:fs';
import { Elysia } from 'elysia';
import { memoryStore } from 'cachette/adapters/memory';
import { cache } from 'cachette/elysia';
import { missHitPurge } from './miss-hit.mjs';

let calls = 0;
const plugin = cache({ store: memoryStore(), ttl: '30s' });
const app = new Elysia()
  .use(plugin)
  .get('/api/items', () => ({ n: ++calls }))
  .listen({ port: 0, hostname: '127.0.0.1' });
try {
  await missHitPurge(`http://127.0.0.1:${app.server.port}/api/items?q=1`, plugin, () => calls);
} finally {
  await app.stop(true);
  await plugin.close();
}
console.log(`ok elysia@${JSON.parse(readFileSync(new URL('./node_modules/elysia/package.json', import.meta.url), 'utf8')).version}`);
console.log('bun ok');
