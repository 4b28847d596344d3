import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';

const runtime = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';
const entry = new URL(import.meta.resolve('cachette')).pathname.replace(/^.*\/node_modules\/cachette\//, '');
const cache = createCache({ store: memoryStore(), ttl: '1m' });
let calls = 0;
const load = () => {
  calls++;
  return { at: new Date(0), tags: new Set(['a']) };
};
await cache.getOrSet('k', load);
const hit = await cache.getOrSet('k', load);
console.log(`${runtime}: cachette from ${entry}, ${calls} call, ${hit.at instanceof Date && hit.tags.has('a') ? 'a Date and a Set back' : 'lost types'}`);
await cache.close();
