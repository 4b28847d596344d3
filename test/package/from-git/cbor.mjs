// Whether cbor-x loaded its optional native add-on (cbor-extract), and that cachette's CBOR round trip works either way.
import { createCache } from 'cachette';
import { memoryStore } from 'cachette/adapters/memory';
import { isNativeAccelerationEnabled } from 'cbor-x';

const cache = createCache({ store: memoryStore(), ttl: '1m' });
const value = { at: new Date(0), ids: new Set([1, 2]), name: 'x'.repeat(100) };
await cache.set('k', value);
const back = await cache.get('k');
const same = back.at.getTime() === 0 && back.ids.has(2) && back.name === value.name;
console.log(`native add-on ${isNativeAccelerationEnabled ? 'loaded' : 'not loaded'}, round trip ${same ? 'ok' : 'lost data'}`);
await cache.close();
