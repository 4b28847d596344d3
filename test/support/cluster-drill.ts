/**
 * A fault drill for the cluster store: the caching proxy (products/proxy) over the cluster
 * store in front of a small origin, real HTTP clients on loopback keeping a steady load on a set
 * of cached URLs, a fault injected while they run (a master killed, slots resharded), and what
 * the clients saw: HTTP errors, the longest request, and how long until hits came back.
 *
 * Shared by the failover test (which asserts on the report) and bench/cluster/failover.ts (which
 * prints it), so that the figures in the closing note come from the code the tests run.
 */
import { Agent, request } from 'node:http';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startProxy } from '../../products/proxy/index.ts';
import type { HealthEventDetail } from '../../src/cache/events.ts';
import { serveFetch } from '../http/node-serve.ts';
import type { RedisCluster } from './redis-cluster.ts';

/** How to run a drill. */
export interface DrillOptions {
  /** The cluster (its nodes are the store's startup nodes; its error replies are counted). */
  cluster: RedisCluster;
  /** The fault; the drill measures from its start. Resolves when the fault is over (e.g. the replica was promoted). */
  fault(): Promise<void>;
  /** Concurrent HTTP clients (each one request at a time). Default 16. */
  clients?: number;
  /** Distinct URLs they cycle through (every one cached after the warm-up). Default 300. */
  urls?: number;
  /** Load before the fault (after one request per URL has filled the cache), which gives the baseline hit ratio. Default 1500 ms. */
  warmupMs?: number;
  /** The longest the drill waits for hits to come back after the fault started. Default 20 s. */
  recoverWithinMs?: number;
  /** How long hits must hold at the baseline to count as back. Default 1000 ms. */
  holdMs?: number;
  /** Origin latency per request, so that a miss costs something. Default 2 ms. */
  originDelayMs?: number;
}

/** What the clients and the cache saw. */
export interface DrillReport {
  /** Requests made, all phases. */
  requests: number;
  /** Requests that did not end in a 200 (status ≠ 200 or a failed connection). */
  httpErrors: number;
  /** Status codes seen, with counts ("network" for a failed connection). */
  statuses: Record<string, number>;
  /** Hit ratio over the last second before the fault. */
  baselineHitRatio: number;
  /** The longest request that started after the fault began, ms. */
  longestRequestMs: number;
  /** The longest request before the fault, ms (what the machine does anyway). */
  longestBeforeMs: number;
  /** How long the fault itself took (e.g. until the replica was promoted), ms. */
  faultMs: number;
  /**
   * From the start of the fault until hits were back for good: the end of the last 100 ms window
   * whose hit ratio was below 90 % of the baseline; 0 when it never dipped, undefined when hits did
   * not come back within `recoverWithinMs`.
   */
  hitsBackAfterMs: number | undefined;
  /** Responses served from the origin (misses) after the fault began. */
  missesAfterFault: number;
  /** Store errors the cache reported (error events from the store). */
  storeErrors: number;
  /** Error replies the cluster sent while the fault ran, by kind: MOVED and ASK show the redirections clients followed. */
  errorReplies: Record<string, number>;
  /** The cache's health events, with their time from the start of the fault (negative: before). */
  health: Array<{ atMs: number; kind: HealthEventDetail['kind']; state: HealthEventDetail['state']; cause?: string }>;
}

interface Sample {
  /** When the request started, ms from the drill's start. */
  at: number;
  ms: number;
  status: string;
  hit: boolean;
}

const WINDOW_MS = 100;

/** Runs the drill and resolves with its report; everything it started is stopped, whatever happens. */
export async function runDrill(options: DrillOptions): Promise<DrillReport> {
  const clients = options.clients ?? 16;
  const urls = options.urls ?? 300;
  const originDelayMs = options.originDelayMs ?? 2;
  const origin = await serveFetch(async (req) => {
    await new Promise((r) => setTimeout(r, originDelayMs));
    return new Response(`item ${new URL(req.url).pathname}`, { headers: { 'cache-control': 's-maxage=300', 'content-type': 'text/plain' } });
  });
  const store = valkeyStore({ cluster: options.cluster.seedList.split(',') });
  const proxy = await startProxy({ origin: origin.url, store });
  const events = proxy.cache.cache.events;
  const started = performance.now();
  const now = () => performance.now() - started;
  let faultAt = Number.POSITIVE_INFINITY;
  let storeErrors = 0;
  const health: DrillReport['health'] = [];
  events.addEventListener('error', (event) => {
    if (event.detail.source === 'store') storeErrors++;
  });
  events.addEventListener('health', (event) => {
    const { kind, state, cause } = event.detail;
    health.push({ atMs: Math.round(now() - faultAt), kind, state, ...(cause === undefined ? {} : { cause }) });
  });
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const samples: Sample[] = [];
  const windows = new Windows();
  let stop = false;
  const client = async (id: number) => {
    for (let i = id; !stop; i += clients) {
      const at = now();
      const answer = await get(agent, `${proxy.url}/item/${i % urls}`);
      samples.push({ at, ms: now() - at, status: answer.status, hit: answer.hit });
      windows.add(at, answer.hit);
    }
  };
  try {
    // Every URL once (a miss that stores it), then the load: the baseline is then all hits.
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < urls) await get(agent, `${proxy.url}/item/${next++}`);
      }),
    );
    await proxy.idle();
    const load = Promise.all(Array.from({ length: clients }, (_, id) => client(id)));
    await new Promise((r) => setTimeout(r, options.warmupMs ?? 1500));
    const repliesBefore = await options.cluster.errorReplies();
    faultAt = now();
    const faultDone = options.fault().then(() => now() - faultAt);
    let faultMs: number | undefined;
    void faultDone.then(
      (ms) => (faultMs = ms),
      () => {},
    );
    const holdMs = options.holdMs ?? 1000;
    const deadline = faultAt + (options.recoverWithinMs ?? 20_000);
    const baseline = windows.hitRatio(faultAt - 1000, faultAt);
    // Poll until hits have held at the baseline for `holdMs` since the fault ended, or the deadline.
    for (;;) {
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const back = windows.hitsBackAt(faultAt, now(), baseline);
      if (faultMs !== undefined && back !== undefined && now() - Math.max(back, faultAt + faultMs) >= holdMs) break;
      if (now() > deadline) break;
    }
    // Windows after this moment hold no requests (the load is stopping): they say nothing about hits.
    const loadEnded = now();
    stop = true;
    await load;
    faultMs ??= await faultDone;
    const errorReplies: Record<string, number> = {};
    for (const [kind, count] of Object.entries(await options.cluster.errorReplies())) {
      // A killed node's counters are gone with it; only growth on the running nodes is counted.
      if (count > (repliesBefore[kind] ?? 0)) errorReplies[kind] = count - (repliesBefore[kind] ?? 0);
    }
    const after = samples.filter((s) => s.at >= faultAt);
    const statuses: Record<string, number> = {};
    for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    const back = windows.hitsBackAt(faultAt, loadEnded, baseline);
    return {
      requests: samples.length,
      httpErrors: samples.filter((s) => s.status !== '200').length,
      statuses,
      baselineHitRatio: round(baseline),
      longestRequestMs: round(Math.max(0, ...after.map((s) => s.ms))),
      longestBeforeMs: round(Math.max(0, ...samples.filter((s) => s.at < faultAt).map((s) => s.ms))),
      faultMs: Math.round(faultMs),
      hitsBackAfterMs: back === undefined ? undefined : Math.round(back - faultAt),
      missesAfterFault: after.filter((s) => !s.hit).length,
      storeErrors,
      errorReplies,
      health,
    };
  } finally {
    stop = true;
    agent.destroy();
    await proxy.close();
    await store.close();
    await origin.close();
  }
}

/** One GET over a kept-alive connection: its status ("network" when the exchange failed) and whether Cache-Status says hit. */
function get(agent: Agent, url: string): Promise<{ status: string; hit: boolean }> {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      const hit = /\bhit\b/.test(String(res.headers['cache-status'] ?? ''));
      res.resume();
      res.once('end', () => resolve({ status: String(res.statusCode), hit }));
      res.once('error', () => resolve({ status: 'network', hit: false }));
    });
    req.once('error', () => resolve({ status: 'network', hit: false }));
    req.end();
  });
}

/** Hits and requests per 100 ms window, by when the request started. */
class Windows {
  readonly #hits: number[] = [];
  readonly #all: number[] = [];

  add(at: number, hit: boolean): void {
    const w = Math.floor(at / WINDOW_MS);
    this.#all[w] = (this.#all[w] ?? 0) + 1;
    if (hit) this.#hits[w] = (this.#hits[w] ?? 0) + 1;
  }

  /** Hit ratio of the requests started in [from, to). */
  hitRatio(from: number, to: number): number {
    let hits = 0;
    let all = 0;
    for (let w = Math.ceil(from / WINDOW_MS); w < Math.floor(to / WINDOW_MS); w++) {
      hits += this.#hits[w] ?? 0;
      all += this.#all[w] ?? 0;
    }
    return all === 0 ? 0 : hits / all;
  }

  /**
   * The end of the last complete window since `from` whose hit ratio fell below 90 % of the
   * baseline (`from` itself when none did); undefined while the newest complete window is still
   * below it. A window without requests counts as below: nobody was served.
   */
  hitsBackAt(from: number, now: number, baseline: number): number | undefined {
    const first = Math.ceil(from / WINDOW_MS);
    const end = Math.floor(now / WINDOW_MS); // Windows before this one are complete.
    let back = from;
    for (let w = first; w < end; w++) {
      const all = this.#all[w] ?? 0;
      if (all === 0 || (this.#hits[w] ?? 0) / all < 0.9 * baseline) back = (w + 1) * WINDOW_MS;
    }
    return end > first && back >= end * WINDOW_MS ? undefined : back;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
