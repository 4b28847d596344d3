/**
 * Memory of the caching proxy while clients that never read hold large hits (issue 23, item 9;
 * issue 27, item 12): a 7 MiB response is cached, then raw sockets ask for it and read nothing.
 * On a store that is not in process memory each hit that reads the store on its own decodes its
 * own copy of the body: garbage once it is found equal to the copy already held, but all alive
 * at once when the hits come together (their reads fold into one MGET that brings a copy per
 * hit), which concurrent lookups of one entry sharing one read (src/http/shared-reads.ts)
 * removes. The proxy runs in this process; the origin and redis-server run in their own.
 * Reported: the peak RSS while the clients arrive (VmHWM on Linux, else sampled every 20 ms),
 * the RSS a second after the last one arrived (what an outside observer sees), the RSS the
 * stalled clients keep after a full collection, what they cost for as long as they stay, with
 * the live ArrayBuffer bytes among it (RSS also keeps what the allocator does not give back),
 * how many clients got a hit (a store read that timed out is a miss served by the origin, which
 * hides the copies), and the proxy's own account (`held()`). Every case runs in a fresh process,
 * so that one case's high-water mark does not hide the next one's. Loopback only, bounded in
 * bytes and time: the stalled sockets are dropped after a few seconds.
 *
 *   npx tsx bench/proxy-slow-readers.ts                   # memory store, one URL; valkey store, one URL, then 40 URLs
 *   npx tsx bench/proxy-slow-readers.ts --quick           # valkey store, one URL
 *   npx tsx bench/proxy-slow-readers.ts --clients 300     # as many clients (the distinct-URL case cycles over 40 URLs)
 *   npx tsx bench/proxy-slow-readers.ts --together        # every client at once instead of one every 25 ms
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { memoryStore } from '../adapters/memory/index.ts';
import { valkeyStore } from '../adapters/valkey/index.ts';
import { startProxy } from '../products/proxy/index.ts';
import type { Store } from '../src/store/types.ts';
import { startOwnedRedis } from './support/owned-redis.ts';

const quick = process.argv.includes('--quick');
const together = process.argv.includes('--together');
const MIB = 1024 * 1024;
const BODY_BYTES = 7 * MIB;
const clientsArg = process.argv.indexOf('--clients');
const CLIENTS = clientsArg === -1 ? 40 : Number(process.argv[clientsArg + 1]);
if (!(Number.isInteger(CLIENTS) && CLIENTS > 0)) throw new Error('bench/proxy-slow-readers.ts: --clients takes a positive integer');
// The distinct-URL case asks for at most this many URLs (in turn), so that the store holds 40 bodies, not one per client.
const DISTINCT_URLS = 40;
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

/** A client that asked and reads nothing more, and whether its answer was a cache hit (undefined: no answer began in time). */
interface Stalled {
  socket: Socket;
  hit: boolean | undefined;
}

/**
 * A raw client that sends a GET (for the URL the cache was filled under) and then reads
 * nothing but the first bytes that arrive (the head, to see whether it was a hit): the rest
 * stays in the kernel and a 16 KiB buffer. Resolves once the answer began (the proxy has begun
 * writing it), or after ARRIVAL_LIMIT_MS.
 */
function stalledClient(port: number, path: string): Promise<Stalled> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on('error', () => {});
    const timer = setTimeout(() => resolve({ socket, hit: undefined }), ARRIVAL_LIMIT_MS);
    socket.once('readable', () => {
      clearTimeout(timer);
      const head = String(socket.read(1024) ?? socket.read() ?? '');
      resolve({ socket, hit: /^cache-status:[^\r]*; hit/im.test(head) });
    });
  });
}

/** This process's peak RSS since the last reset (Linux: VmHWM), or undefined where /proc has none. */
function peakRss(): number | undefined {
  try {
    const kib = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** Starts a new peak (Linux: writing 5 to clear_refs resets VmHWM); elsewhere the sampled peak stands. */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the 20 ms samples are the peak.
  }
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
    const paths = Array.from({ length: CLIENTS }, (_, i) => (distinctUrls ? `/big/${i % DISTINCT_URLS}` : '/big/0'));
    for (const path of new Set(paths)) if ((await readWhole(proxy.url + path)) !== BODY_BYTES) throw new Error('the origin answered short');
    await proxy.idle();
    collect();
    const { rss: base, arrayBuffers: baseBuffers } = process.memoryUsage();
    resetPeakRss();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const clients: Stalled[] = [];
    if (together) clients.push(...(await Promise.all(paths.map((path) => stalledClient(proxy.port, path)))));
    else {
      // One after another, as visitors come.
      for (const path of paths) {
        clients.push(await stalledClient(proxy.port, path));
        await new Promise((resolve) => setTimeout(resolve, STAGGER_MS));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    clearInterval(sampler);
    const after = process.memoryUsage().rss;
    peak = Math.max(peak, after, peakRss() ?? 0);
    collect();
    const { rss: kept, arrayBuffers: keptBuffers } = process.memoryUsage();
    // `held` is absent from proxies that predate the bound (a run against an older tree).
    const held = (proxy as Partial<typeof proxy>).held?.();
    for (const { socket } of clients) socket.destroy();
    const mib = (bytes: number) => `${bytes >= 0 ? '+' : ''}${(bytes / MIB).toFixed(0)}`;
    const hits = clients.filter((client) => client.hit === true).length;
    const misses = clients.filter((client) => client.hit === false).length;
    const account = held === undefined ? '' : `; held ${(held.bytes / MIB).toFixed(0)} MiB, ${held.closedConnections} closed by the proxy`;
    return `RSS ${(base / MIB).toFixed(0)} MiB, peak ${mib(peak - base)}, after ${HOLD_MS / 1000} s ${mib(after - base)}, kept after GC ${mib(kept - base)} MiB (live buffers ${mib(keptBuffers - baseBuffers)} MiB); ${hits} hits, ${misses} served otherwise, ${CLIENTS - hits - misses} unanswered${account}`;
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
  console.log(
    `${CLIENTS} clients that never read, each asking for a cached ${BODY_BYTES / MIB} MiB response (${together ? 'all at once' : `one every ${STAGGER_MS} ms`}, each once its answer began, then ${HOLD_MS / 1000} s more)`,
  );
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
  console.log(`  ${store.padEnd(6)} store, ${distinct ? `${Math.min(CLIENTS, DISTINCT_URLS)} URLs` : 'one URL '}: ${await run(store, distinct)}`);
}
