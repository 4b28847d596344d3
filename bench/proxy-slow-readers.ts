/**
 * Memory of the caching proxy while clients that never read hold large hits (issue 23, item 9):
 * a 7 MiB response is cached, then 40 raw sockets ask for it and read nothing. On a store that
 * is not in process memory every hit decodes its own copy of the body, so each such client
 * used to keep a copy alive (40 × 7 MiB). The proxy runs in this process; the origin and
 * redis-server run in their own. Reported: the peak RSS while the clients arrive (each hit
 * still decodes a copy, garbage once it is shared, until the collector runs) and the RSS the
 * stalled clients keep after a full collection, what they cost for as long as they stay, with
 * the live ArrayBuffer bytes among it (RSS also keeps what the allocator does not give back)
 * and the proxy's own account (`held()`). Every case runs in a fresh process, so that one case's
 * high-water mark does not hide the next one's. Loopback only, bounded in bytes and time: the
 * stalled sockets are dropped after a few seconds.
 *
 *   npx tsx bench/proxy-slow-readers.ts            # memory store, one URL; valkey store, one URL, then 40 URLs
 *   npx tsx bench/proxy-slow-readers.ts --quick    # valkey store, one URL
 */
import { execFileSync, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { memoryStore } from '../adapters/memory/index.ts';
import { valkeyStore } from '../adapters/valkey/index.ts';
import { startProxy } from '../runtimes/node/proxy/index.ts';
import type { Store } from '../src/store/types.ts';
import { startOwnedRedis } from './support/owned-redis.ts';

const quick = process.argv.includes('--quick');
const MIB = 1024 * 1024;
const BODY_BYTES = 7 * MIB;
const CLIENTS = 40;
const HOLD_MS = 1000;
const STAGGER_MS = 25;
const ARRIVAL_LIMIT_MS = 10_000;

/** The origin: a child process answering every path with BODY_BYTES that begin with the path (no two paths' bodies are equal), cacheable. */
const ORIGIN = `
const http = require('node:http');
http.createServer((req, res) => {
  const body = Buffer.alloc(${BODY_BYTES}, 0x2e);
  body.write(req.url);
  res.writeHead(200, { 'cache-control': 'max-age=600', 'content-type': 'application/octet-stream', 'content-length': body.length });
  res.end(body);
}).listen(0, '127.0.0.1', function () { process.send(this.address().port); });
`;

async function startOrigin(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-e', ORIGIN], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/** Reads one response whole (to fill the cache). */
async function readWhole(url: string): Promise<number> {
  return (await (await fetch(url)).arrayBuffer()).byteLength;
}

/**
 * A raw client that sends a GET (for the URL the cache was filled under) and then reads
 * nothing: what arrives stays in the kernel and a 16 KiB buffer. Resolves once the first bytes
 * of the answer arrived (the proxy has begun writing it), or after ARRIVAL_LIMIT_MS.
 */
function stalledClient(port: number, path: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on('error', () => {});
    const timer = setTimeout(() => resolve(socket), ARRIVAL_LIMIT_MS);
    socket.once('readable', () => {
      clearTimeout(timer);
      resolve(socket);
    });
  });
}

/** A full collection, twice (external memory is freed by the second pass), when the process was started with --expose-gc. */
function collect(): void {
  global.gc?.();
  global.gc?.();
}

async function run(storeKind: 'memory' | 'valkey', distinctUrls: boolean): Promise<string> {
  const origin = await startOrigin();
  const redis = storeKind === 'valkey' ? await startOwnedRedis() : undefined;
  if (storeKind === 'valkey' && redis === undefined) throw new Error('bench/proxy-slow-readers.ts needs redis-server for the valkey case');
  const store: Store = redis === undefined ? memoryStore() : valkeyStore(redis.url);
  const proxy = await startProxy({ origin: origin.url, store });
  try {
    const paths = Array.from({ length: CLIENTS }, (_, i) => (distinctUrls ? `/big/${i}` : '/big/0'));
    for (const path of new Set(paths)) if ((await readWhole(proxy.url + path)) !== BODY_BYTES) throw new Error('the origin answered short');
    await proxy.idle();
    collect();
    const { rss: base, arrayBuffers: baseBuffers } = process.memoryUsage();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    // One after another, as visitors come: requests in the same tick would share one store read.
    const sockets: Socket[] = [];
    for (const path of paths) {
      sockets.push(await stalledClient(proxy.port, path));
      await new Promise((resolve) => setTimeout(resolve, STAGGER_MS));
    }
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    collect();
    const { rss: kept, arrayBuffers: keptBuffers } = process.memoryUsage();
    // `held` is absent from proxies that predate the bound (a run against an older tree).
    const held = (proxy as Partial<typeof proxy>).held?.();
    for (const socket of sockets) socket.destroy();
    const mib = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / MIB).toFixed(0)}`;
    const account = held === undefined ? '' : `; held ${(held.bytes / MIB).toFixed(0)} MiB, ${held.closedConnections} of ${CLIENTS} closed by the proxy`;
    return `RSS ${(base / MIB).toFixed(0)} MiB, peak ${mib(peak - base)}, kept after GC ${mib(kept - base)} MiB (live buffers ${mib(keptBuffers - baseBuffers)} MiB)${account}`;
  } finally {
    await proxy.close();
    await store.close();
    await redis?.stop();
    origin.stop();
  }
}

// The memory store evicts 40 bodies of 7 MiB (beyond its default size): it is measured on one URL only.
const ALL_CASES = [
  ['memory', false],
  ['valkey', false],
  ['valkey', true],
] as const;
const cases = quick ? ALL_CASES.slice(1, 2) : ALL_CASES;
const only = process.env.SLOW_READERS_CASE;
if (only === undefined) {
  console.log(`${CLIENTS} clients that never read, each asking for a cached ${BODY_BYTES / MIB} MiB response (each once its answer began, then ${HOLD_MS / 1000} s more)`);
  for (let i = 0; i < cases.length; i++) {
    const output = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      env: { ...process.env, SLOW_READERS_CASE: String(i) },
      encoding: 'utf8',
      timeout: 120_000,
    });
    process.stdout.write(output);
  }
} else {
  const [store, distinct] = cases[Number(only)]!;
  console.log(`  ${store.padEnd(6)} store, ${distinct ? `${CLIENTS} URLs` : 'one URL '}: ${await run(store, distinct)}`);
}
