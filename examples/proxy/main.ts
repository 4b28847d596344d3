/**
 * npm run proxy -- --origin http://127.0.0.1:8000 --port 8082 [--store memory|valkey] [--valkey-url redis://…]
 */
import { parseArgs } from 'node:util';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Duration, Store } from '../../src/index.ts';
import { startProxy } from './proxy.ts';

const { values } = parseArgs({
  options: {
    origin: { type: 'string' },
    port: { type: 'string', default: '8082' },
    host: { type: 'string', default: '127.0.0.1' },
    store: { type: 'string', default: 'memory' },
    'valkey-url': { type: 'string' },
    ttl: { type: 'string' },
    'x-cache': { type: 'boolean', default: false },
  },
});

if (!values.origin) {
  console.error('usage: npm run proxy -- --origin http://127.0.0.1:8000 [--port 8082] [--store memory|valkey] [--valkey-url redis://127.0.0.1:6379] [--ttl 30s] [--x-cache]');
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}

let store: Store;
if (values.store === 'memory') store = memoryStore();
else if (values.store === 'valkey') store = valkeyStore(values['valkey-url'] ?? process.env.VALKEY_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
else {
  console.error(`--store must be memory or valkey, got ${values.store}`);
  process.exit(2);
}

const proxy = await startProxy({
  origin: values.origin,
  port,
  host: values.host,
  store,
  xCache: values['x-cache'],
  // Checked by the cache: a malformed --ttl is a RangeError that names it.
  ...(values.ttl ? { ttl: values.ttl as Duration } : {}),
  onError: (error) => console.error('[proxy] background error:', error),
});
console.log(`[proxy] ${proxy.url} → ${values.origin} (store: ${store.name})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await proxy.close();
    await store.close();
    process.exit(0);
  });
}
