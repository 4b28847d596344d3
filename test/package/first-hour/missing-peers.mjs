// Each entry that needs an optional peer, in an app that has none of them: prints, per entry,
// what happens when the peer is needed (the error's message, or "loads" when nothing is needed).
const report = async (label, attempt) => {
  try {
    await attempt();
    console.log(`${label}: loads`);
  } catch (error) {
    console.log(`${label}: ${error.name}: ${error.message.split('\n')[0]}`);
  }
};

// A URL needs no iovalkey: the store speaks RESP on a connection of its own.
await report('valkeyStore', async () => (await import('cachette/adapters/valkey')).valkeyStore('redis://127.0.0.1:1').close());
await report('valkeyStore client', async () => {
  const store = (await import('cachette/adapters/valkey')).valkeyStore('redis://127.0.0.1:1');
  try {
    store.client;
  } finally {
    await store.close();
  }
});
await report('valkeyStore cluster', async () => (await import('cachette/adapters/valkey')).valkeyStore({ cluster: ['127.0.0.1:7000'] }));
await report('startBridge', async () => (await import('cachette/node/bridge')).startBridge({ redisUrl: 'redis://127.0.0.1:6379' }));
await report('cachette/adapters/upstash', () => import('cachette/adapters/upstash'));
await report('cachette/workers/upstash', () => import('cachette/workers/upstash'));
await report('cachette/otel', () => import('cachette/otel'));
await report('serve', async () => (await import('cachette/node')).serve(() => new Response('x'), { port: 0 }));
await report('requestListener', async () => (await import('cachette/node')).requestListener(() => new Response('x'), { log: false }));
await report('sqliteStore', async () => (await import('cachette/adapters/sqlite')).sqliteStore(':memory:'));
await report('cachette/drizzle', () => import('cachette/drizzle'));
await report('storeFromEnv REDIS_URL', async () => (await (await import('cachette/node')).storeFromEnv({ log: false, store: 'redis://127.0.0.1:1' })).close());
await report('storeFromEnv CACHETTE_STORE=postgres', async () => {
  process.env.CACHETTE_STORE = 'postgres://127.0.0.1:1/app';
  try {
    await (await (await import('cachette/node')).storeFromEnv({ log: false })).close();
  } finally {
    delete process.env.CACHETTE_STORE;
  }
});
await report('cachette/hono', async () => {
  const { cache } = await import('cachette/hono');
  const { memoryStore } = await import('cachette/adapters/memory');
  if (typeof cache({ store: memoryStore() }) !== 'function') throw new Error('no middleware');
});
