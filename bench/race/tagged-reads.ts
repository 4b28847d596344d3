/**
 * What tags cost a read (issue 19, "tagged reads nearly as cheap as untagged ones"): 50
 * `getOrSet` hits in flight over 100 hot keys, with no tags and with 2 tags, side by side in
 * interleaved rounds, on valkey (RESP, direct; and with an L1 tier in `strict` mode, which
 * confirms every copy in one round trip) and on upstash (HTTP, through the bridge, in a
 * child process so its CPU is not the client's). Reported per setup: calls/s and client CPU
 * per call (medians over the rounds), the tagged ÷ untagged ratios, and the store calls per
 * getOrSet the server counted (INFO commandstats), which show how the tagged reads of a tick
 * fold: one script for the tick, not one per call.
 *
 *   taskset -c 1 npx tsx bench/race/tagged-reads.ts [--quick]      (REDIS_URL to reuse a server)
 *
 * Options: `--calls N` and `--rounds N` (calls a round, rounds), `--stores valkey,l1,upstash`
 * (which setups run), and `--fresh`: every round opens a new store and cache for each setup,
 * fills its keys untimed and measures it with no warm-up round, as a program that starts, reads
 * and stops does (the default keeps one cache per setup, warmed up once, for every round).
 *
 * With two cores or more the redis-server it starts is pinned to core 0; pin the client (and
 * with it the bridge) to the other one as above.
 */
import { cpus } from 'node:os';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache, type CacheOptions, type Store } from '../../src/index.ts';
import { spawnBridge } from '../../test/support/bridge-process.ts';
import { smallValue } from '../support/payloads.ts';
import { commandDelta, openServer } from '../support/server.ts';
import { median } from '../support/stats.ts';

const quick = process.argv.includes('--quick');
const fresh = process.argv.includes('--fresh');
const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
};
const CALLS = Number(option('calls') ?? (quick ? 10_000 : 100_000));
const ROUNDS = Number(option('rounds') ?? (quick ? 3 : 7));
const STORES = new Set((option('stores') ?? 'valkey,l1,upstash').split(','));
const IN_FLIGHT = 50;
const KEYS = 100;
const TAGS = ['tag-a', 'tag-b'];

/** One setup measured: a store and whether its reads carry tags. */
interface Setup {
  label: string;
  tagged: boolean;
  /** The setup's cache (a new one every round with --fresh). */
  cache: Cache;
  rates: number[];
  cpu: number[];
  commands: Record<string, number>;
}

/** Calls/s and client CPU µs per call of CALLS hits, IN_FLIGHT in flight. */
async function round(cache: Cache, tagged: boolean): Promise<{ rate: number; cpuUs: number }> {
  const options = tagged ? { tags: TAGS } : undefined;
  const never = () => {
    throw new Error('a hot key missed');
  };
  let next = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < CALLS) await cache.getOrSet(`hot:${next++ % KEYS}`, never, options);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { rate: (CALLS * 1000) / (performance.now() - started), cpuUs: (cpu.user + cpu.system) / CALLS };
}

const server = await openServer(cpus().length >= 2 ? 0 : undefined);
const bridge = STORES.has('upstash') ? await spawnBridge(server.url) : undefined;
const setups: Setup[] = [];
/** A setup's cache, its keys filled (untimed). */
async function openCache(open: () => Store, l1: CacheOptions['l1'], tagged: boolean, namespace: string): Promise<Cache> {
  const cache = createCache({ store: open(), namespace, ...(l1 ? { l1 } : {}) });
  for (let i = 0; i < KEYS; i++) await cache.getOrSet(`hot:${i}`, () => smallValue(i), tagged ? { tags: TAGS } : undefined);
  await cache.idle();
  return cache;
}
try {
  const stores: Array<[string, string, () => Store, CacheOptions['l1']]> = [
    ['valkey', 'valkey', () => valkeyStore(server.url), undefined],
    // An L1 copy confirmed by the store on every read: one small round trip, entry and tags together.
    ['l1', 'valkey, L1 strict', () => valkeyStore(server.url), { consistency: 'strict' }],
    ['upstash', 'upstash (bridge)', () => upstashStore({ url: bridge!.url, token: bridge!.token }), undefined],
  ];
  const opened: Array<{ open: () => Store; l1: CacheOptions['l1']; namespace: string }> = [];
  for (const [id, name, open, l1] of stores) {
    if (!STORES.has(id)) continue;
    for (const tagged of [false, true]) {
      const namespace = `tagged-reads-${setups.length}`;
      opened.push({ open, l1, namespace });
      const cache = await openCache(open, l1, tagged, namespace);
      if (!fresh) await round(cache, tagged); // warm-up
      setups.push({ label: `${name}, ${tagged ? '2 tags' : 'no tags'}`, tagged, cache, rates: [], cpu: [], commands: {} });
    }
  }
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved: every setup once per round, so a noisy moment hits them all alike.
    for (const [i, setup] of setups.entries()) {
      if (fresh && r > 0) {
        await setup.cache.close();
        setup.cache = await openCache(opened[i]!.open, opened[i]!.l1, setup.tagged, opened[i]!.namespace);
      }
      const before = await server.monitor.commandCounts();
      const { rate, cpuUs } = await round(setup.cache, setup.tagged);
      const delta = commandDelta(before, await server.monitor.commandCounts());
      setup.rates.push(rate);
      setup.cpu.push(cpuUs);
      for (const [command, calls] of Object.entries(delta)) setup.commands[command] = (setup.commands[command] ?? 0) + calls;
    }
  }
} finally {
  for (const setup of setups) await setup.cache.close();
  await bridge?.stop();
  await server.stop();
}

const perCall = (setup: Setup) =>
  Object.entries(setup.commands)
    .filter(([command]) => !['info', 'ping', 'client', 'hello'].includes(command))
    .map(([command, calls]) => `${command} ${(calls / (CALLS * ROUNDS)).toFixed(3)}`)
    .join(', ');
console.log(
  `redis ${server.version}, Node ${process.version}; ${IN_FLIGHT} getOrSet hits in flight over ${KEYS} hot keys, ${CALLS.toLocaleString('en-US')} calls a round, median of ${ROUNDS} interleaved rounds${fresh ? ', a fresh cache per round' : ''}${quick ? ' (--quick)' : ''}\n`,
);
console.log('| setup | getOrSet/s | client CPU µs/call | tagged ÷ untagged rate | server commands per call |');
console.log('|---|---:|---:|---:|---|');
for (let i = 0; i < setups.length; i++) {
  const setup = setups[i]!;
  const rate = median(setup.rates);
  const ratio = setup.tagged ? `${(rate / median(setups[i - 1]!.rates)).toFixed(2)}×` : '';
  console.log(`| ${setup.label} | ${Math.round(rate).toLocaleString('en-US')} | ${median(setup.cpu).toFixed(2)} | ${ratio} | ${perCall(setup)} |`);
}
