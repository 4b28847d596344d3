/**
 * The closing-note figures of issue 9 that are not races: the cost of tags per `getOrSet` hit
 * and L1 hot-key reads, 50 calls in flight, over a throwaway redis-server; plus the server
 * connections each setup holds. `npx tsx bench/race/hot-figures.ts [--quick]`.
 */
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type CacheOptions } from '../../src/index.ts';
import { startOwnedRedis } from '../support/owned-redis.ts';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 5_000 : 100_000;
const IN_FLIGHT = 50;
const RUNS = quick ? 1 : 5;

/** Calls per second of `call`, 50 in flight, median of RUNS runs after a warm-up. */
async function rate(call: () => Promise<unknown>): Promise<number> {
  const once = async () => {
    let left = CALLS;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (left-- > 0) await call();
      }),
    );
    return (CALLS * 1000) / (performance.now() - started);
  };
  await once();
  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) rates.push(await once());
  return rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!;
}

async function clients(admin: Redis): Promise<number> {
  return Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))![1]) - 1;
}

const redis = await startOwnedRedis();
if (!redis) throw new Error('needs redis-server');
const admin = new Redis(redis.url);
const rows: Array<[string, number, number]> = [];
try {
  const cachette = async (label: string, options: Partial<CacheOptions>, tags: string[] | undefined) => {
    const cache = createCache({ store: valkeyStore(redis.url), namespace: label, ...options });
    await cache.getOrSet('hot', () => ({ id: 1, name: 'hot key', tags: ['a', 'b'] }), tags ? { tags } : undefined);
    const figure = await rate(() => cache.getOrSet('hot', () => ({}), tags ? { tags } : undefined));
    rows.push([label, figure, await clients(admin)]);
    await cache.close();
  };
  await cachette('cachette getOrSet hit, no tags', {}, undefined);
  await cachette('cachette getOrSet hit, 2 tags', {}, ['a', 'b']);
  await cachette('cachette L1 strict, 2 tags', { l1: { consistency: 'strict' } }, ['a', 'b']);
  await cachette('cachette L1 tracking, 2 tags', { l1: { consistency: 'tracking' } }, ['a', 'b']);
  const connection = new Redis(redis.url);
  const bus = new Redis(redis.url);
  const bento = new BentoCache({
    default: 's',
    stores: {
      s: bentostore()
        .useL1Layer(memoryDriver({ maxItems: 1000 }))
        .useL2Layer(redisDriver({ connection }))
        .useBus(redisBusDriver({ connection: bus })),
    },
  });
  await bento.getOrSet({ key: 'hot', factory: () => ({ id: 1 }) });
  rows.push(['bentocache 1.6 L1 + L2 + bus', await rate(() => bento.getOrSet({ key: 'hot', factory: () => ({}) })), await clients(admin)]);
  await bento.disconnect();
  connection.disconnect();
  bus.disconnect();
} finally {
  admin.disconnect();
  await redis.stop();
}
console.log(`| setup (50 in flight, one hot key${quick ? ', --quick' : ''}) | getOrSet/s | server connections |\n|---|---:|---:|`);
for (const [label, figure, conns] of rows) console.log(`| ${label} | ${Math.round(figure).toLocaleString('en-US')} | ${conns} |`);
