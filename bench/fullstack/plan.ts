import { VALKEY_CLIENT_ON_BUN } from '../../runtimes/shared/valkey-client.ts';

/**
 * What the full-stack bench runs: each runtime target, its contenders on `/work`, its page
 * caches on `/page/:id`, and the rows that cannot run there with the reason.
 */

/** A runtime as the bench serves the app on it. */
export type TargetId = 'node' | 'node-cluster' | 'bun' | 'deno' | 'workerd-upstash' | 'workerd-kv';

/** How the server of a target starts. */
export type ServerKind = 'node' | 'bun' | 'deno' | 'workerd';

/** What a `/work` row is to the report: cachette's default, another cachette configuration, a raw client, or a peer library. */
export type RowRole = 'cachette' | 'cachette-variant' | 'raw' | 'peer';

/** A `/work` row: a contender id the server understands (servers/server-app.ts, servers/worker.ts). */
export interface WorkRow {
  contender: string;
  label: string;
  role: RowRole;
  /** Set when the row cannot run on this target: the report prints the reason instead of figures. */
  unavailable?: string;
  /** Why the row is expected to fail when tried (it is tried anyway; the observed error is reported). */
  expectedFailure?: string;
  /** Store connections one server process may hold (default 1; 2 with CLIENT TRACKING's invalidation connection). */
  connectionsPerProcess?: number;
}

/** A `/page/:id` row. */
export interface PageRow {
  page: 'none' | 'cachette' | 'hono-cache';
  label: string;
  /** Percentage of requests for ids never requested before. */
  missPercent: number;
  unavailable?: string;
}

/** One runtime target. */
export interface Target {
  id: TargetId;
  label: string;
  server: ServerKind;
  /** node:cluster workers (node-cluster only). */
  workers?: number;
  /** What cachette's default store talks to on this target. */
  store: 'redis' | 'bridge' | 'kv';
  /**
   * Only processes running this program count for RSS and CPU: on Node not tsx's esbuild
   * service, on workerd not the Node process hosting miniflare.
   */
  rssProgram?: string;
  /** Pin the server to the server CPU (false for the cluster, whose workers need both cores). */
  pinServer: boolean;
  /** wrk connections for this target when fewer than the run's (a store too slow for 100 to finish inside a window). */
  maxConnections?: number;
  work: WorkRow[];
  pages: PageRow[];
  /** Sentences the report prints under the target's heading. */
  notes: string[];
}

const PEERS: WorkRow[] = [
  { contender: 'bentocache-l2', label: 'bentocache (redis L2)', role: 'peer' },
  { contender: 'bentocache-tiered', label: 'bentocache (memory L1 + redis L2)', role: 'peer' },
  { contender: 'cache-manager', label: 'cache-manager 7 (Keyv + @keyv/redis)', role: 'peer' },
  { contender: 'unstorage', label: 'unstorage (redis driver)', role: 'peer' },
];

/** The raw TCP clients every server runtime runs (Bun adds its own). */
const RAW_TCP: WorkRow[] = [
  { contender: 'node-redis', label: 'node-redis 5 (raw, JSON)', role: 'raw' },
  { contender: 'iovalkey', label: 'iovalkey (raw, JSON)', role: 'raw' },
];

const NO_CACHE_API = (runtime: string) => `${runtime} has no Cache API (\`globalThis.caches\`), which hono/cache needs`;

const pageRows = (hono: string | true, cachetteLabel = 'cachette/hono'): PageRow[] => [
  { page: 'none', label: 'no cache (20 ms origin)', missPercent: 0 },
  { page: 'cachette', label: `${cachetteLabel}, hits`, missPercent: 0 },
  { page: 'cachette', label: `${cachetteLabel}, 10 % misses`, missPercent: 10 },
  ...(hono === true
    ? ([
        { page: 'hono-cache', label: 'hono/cache (Cache API), hits', missPercent: 0 },
        { page: 'hono-cache', label: 'hono/cache (Cache API), 10 % misses', missPercent: 10 },
      ] as PageRow[])
    : ([{ page: 'hono-cache', label: 'hono/cache', missPercent: 0, unavailable: hono }] as PageRow[])),
];

/** cachette with the per-location tier (docs/location-cache.md) over miniflare's local Cache API. */
const LOCATION_ROWS: WorkRow[] = [
  { contender: 'cachette-location-verified', label: "cachette, `locationCache: { mode: 'verified' }` (Cache API in front, never stale, one store read)", role: 'cachette-variant' },
  { contender: 'cachette-location-bounded', label: "cachette, `locationCache: { mode: 'bounded', maxAge: '1s' }` (Cache API in front, up to 1 s stale)", role: 'cachette-variant' },
];

const WORKERD_TCP = 'a Worker may use a TCP socket only within the request that opened it; this library keeps one connection for every request, so workerd cancels the next request as hung';

/** Every target, in the report's order. */
export const TARGETS: readonly Target[] = [
  {
    id: 'node',
    label: 'Node, one process (@hono/node-server)',
    server: 'node',
    store: 'redis',
    rssProgram: 'node',
    pinServer: true,
    work: [
      { contender: 'cachette', label: 'cachette, defaults (valkey store)', role: 'cachette' },
      { contender: 'cachette-l1', label: "cachette, `l1: { consistency: 'tracking' }` (process memory in front, CLIENT TRACKING)", role: 'cachette-variant', connectionsPerProcess: 2 },
      { contender: 'cachette-coherent', label: "cachette, `l1: { consistency: 'coherent' }` (process memory in front, never stale; valkey store)", role: 'cachette-variant', connectionsPerProcess: 2 },
      { contender: 'cachette-compressed', label: 'cachette, `compression: true` (deflate from 1 KiB: the document too)', role: 'cachette-variant' },
      ...RAW_TCP,
      ...PEERS,
    ],
    pages: pageRows(NO_CACHE_API('Node')),
    notes: [],
  },
  {
    id: 'node-cluster',
    label: 'Node, node:cluster with 2 workers (@hono/node-server)',
    server: 'node',
    workers: 2,
    store: 'redis',
    rssProgram: 'node',
    pinServer: false,
    work: [{ contender: 'cachette', label: 'cachette, defaults (valkey store)', role: 'cachette' }, ...RAW_TCP, ...PEERS],
    pages: [],
    notes: [
      'The primary accepts connections and hands them to 2 workers; RSS is the sum of the three processes and connections are those of both workers. Not pinned: the workers need both cores, which they share with wrk and redis-server. Pages are measured on one process only.',
    ],
  },
  {
    id: 'bun',
    label: 'Bun (Bun.serve)',
    server: 'bun',
    store: 'redis',
    pinServer: true,
    // Both Valkey transports of cachette on Bun: the default, and the other one, so each run shows which is faster.
    work: [
      VALKEY_CLIENT_ON_BUN === 'bun-redis'
        ? { contender: 'cachette', label: "cachette, defaults (bun-redis store: Bun's RedisClient)", role: 'cachette' }
        : { contender: 'cachette', label: 'cachette, defaults (valkey store)', role: 'cachette' },
      VALKEY_CLIENT_ON_BUN === 'bun-redis'
        ? { contender: 'cachette-valkey', label: 'cachette over the valkey store', role: 'cachette-variant' }
        : { contender: 'cachette-bun-redis', label: "cachette over Bun's RedisClient (bun-redis store)", role: 'cachette-variant' },
      { contender: 'cachette-coherent', label: "cachette, `l1: { consistency: 'coherent' }` (process memory in front, never stale; valkey store)", role: 'cachette-variant', connectionsPerProcess: 2 },
      { contender: 'bun-redis', label: 'Bun RedisClient (raw, JSON)', role: 'raw' },
      ...RAW_TCP,
      ...PEERS,
    ],
    pages: pageRows(NO_CACHE_API('Bun')),
    notes: [
      `cachette's default store for a Valkey URL on Bun is the ${VALKEY_CLIENT_ON_BUN} store (runtimes/shared/valkey-client.ts says why); the second row is the other one. Store call by store call, without HTTP, \`node_modules/.bin/bun bench/fullstack/bun-transport.ts\` compares the two.`,
    ],
  },
  {
    id: 'deno',
    label: 'Deno (Deno.serve)',
    server: 'deno',
    store: 'redis',
    pinServer: true,
    work: [
      { contender: 'cachette', label: 'cachette, defaults (valkey store)', role: 'cachette' },
      { contender: 'cachette-coherent', label: "cachette, `l1: { consistency: 'coherent' }` (process memory in front, never stale; valkey store)", role: 'cachette-variant', connectionsPerProcess: 2 },
      ...RAW_TCP,
      ...PEERS,
    ],
    pages: pageRows(true),
    notes: [],
  },
  {
    id: 'workerd-upstash',
    label: 'workerd (miniflare) over the local Upstash-compatible bridge',
    server: 'workerd',
    store: 'bridge',
    rssProgram: 'workerd',
    pinServer: true,
    work: [
      { contender: 'cachette', label: 'cachette, defaults (upstash store)', role: 'cachette' },
      ...LOCATION_ROWS,
      { contender: 'upstash', label: '@upstash/redis (raw, its JSON)', role: 'raw' },
      ...PEERS.map((p) => ({ ...p, expectedFailure: WORKERD_TCP })),
    ],
    pages: pageRows(true),
    notes: [
      "Local workerd talking HTTP to a bridge on loopback is not Cloudflare's edge talking to Upstash: the figures show the code path, not what a deployment would see. The bridge runs in its own Node process on the load generator's core and is part of every row's cost.",
      "The peers are written for Node's TCP clients; with `nodejs_compat` they are tried against redis-server directly over TCP.",
    ],
  },
  {
    id: 'workerd-kv',
    label: 'workerd (miniflare) over local Workers KV',
    server: 'workerd',
    store: 'kv',
    rssProgram: 'workerd',
    pinServer: true,
    maxConnections: 10,
    work: [{ contender: 'cachette', label: 'cachette, defaults (cloudflare-kv store)', role: 'cachette' }, ...LOCATION_ROWS, { contender: 'kv', label: 'KV binding (raw, JSON)', role: 'raw' }],
    pages: pageRows(true, 'cachette/hono over KV').filter((p) => p.page === 'cachette'),
    notes: [
      "miniflare's KV is a local simulation inside workerd: no network, no replication, no 60 s propagation, and several milliseconds per operation here, so /work (16 KV operations per request) is slow: this target is loaded with 10 connections, not 100, so that requests finish inside a measured window. The peers have no KV driver in this comparison (unstorage has one, but the issue compares its redis driver).",
    ],
  },
];
