/**
 * A throwaway Redis Cluster on loopback: `masters` redis-servers with `cluster-enabled yes`, each
 * with `replicasPerMaster` replicas, on free ports, joined with `redis-cli --cluster create`, and
 * ready only once every slot is served, every node agrees and every replica is in sync (a replica
 * that never synced cannot be promoted). No persistence; each node in its own temporary folder.
 * The nodes cannot outlive the process that started them (test/support/watchdog.ts).
 *
 * Used once by scripts/test/main.ts (shared by every cluster suite through VALKEY_CLUSTER_NODES),
 * by test files that must break a cluster of their own (failover, resharding) and by benchmarks.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'iovalkey';
import { findRedisServer, freePort, waitForPort } from './redis-server.ts';
import { watchChildren } from './watchdog.ts';

const run = promisify(execFile);

/** How to build the cluster. */
export interface ClusterOptions {
  /** The redis-server binary (found on PATH, or installed with apt when allowed, by default). */
  bin?: string;
  /** Masters (at least 3: a failover needs a majority of masters to vote). */
  masters?: number;
  /** Replicas of each master. */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a master may be unreachable before it is failed over.
   * Short makes failovers fast; too short on a loaded machine fails over healthy nodes.
   */
  nodeTimeoutMs?: number;
  /**
   * `cluster-require-full-coverage`: with `true` (the server's default) the whole cluster
   * refuses every command while any slot has no master, as during a failover.
   */
  requireFullCoverage?: boolean;
  /** Where progress goes (nowhere by default). */
  log?: (line: string) => void;
}

/** One redis-server of the cluster. */
export interface ClusterNodeProcess {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The process id, while it runs. */
  readonly pid: number | undefined;
  /** True until the node is killed or stopped. */
  readonly running: boolean;
}

/** A cluster started by {@link startRedisCluster}. */
export interface RedisCluster {
  /** Every node, masters first (as they were created; a failover changes roles, not this list). */
  readonly nodes: readonly ClusterNodeProcess[];
  /** Startup nodes for a client: every node as `{ host, port }`. */
  readonly seeds: ReadonlyArray<{ host: string; port: number }>;
  /** The same as `host:port,host:port,…`, the form of VALKEY_CLUSTER_NODES. */
  readonly seedList: string;
  /** Kills one node abruptly (SIGKILL by default), as a crash would. */
  kill(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed node again on its port and folder: it rejoins the cluster from its nodes.conf (a master failed over comes back as a replica). */
  restart(port: number): Promise<void>;
  /** Runs redis-cli against a node (`redis-cli -p PORT …args`) and resolves with its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master serving `slot`, as a running node sees it. */
  masterOf(slot: number): Promise<number>;
  /**
   * Waits until the slots of the killed master `port` are served by a promoted replica and the
   * cluster is healthy again, as every running node sees it; resolves how long that took.
   */
  waitForFailover(port: number, withinMs?: number): Promise<number>;
  /** Waits until every node sees a healthy cluster of the shape it was started with, every replica in sync (after a node was restarted). */
  settled(): Promise<void>;
  /**
   * Moves `slot` with its keys to the master on `toPort`, as `redis-cli --cluster reshard` does
   * (IMPORTING/MIGRATING, MIGRATE a few keys at a time, then SETSLOT NODE everywhere), pausing
   * between batches so that clients meet ASK and then MOVED while it runs.
   */
  moveSlot(slot: number, toPort: number, options?: { keysPerBatch?: number; pauseMs?: number }): Promise<void>;
  /**
   * Up to `count` slots of the master on `port` that hold keys matching the glob `match` (all
   * keys by default): the slots worth moving in a drill are those of keys the clients read.
   */
  busySlots(port: number, count: number, match?: string): Promise<number[]>;
  /** Error replies sent so far by the running nodes, summed by kind (`INFO errorstats`: MOVED, ASK, CLUSTERDOWN, …). */
  errorReplies(): Promise<Record<string, number>>;
  /** Stops every node still running and removes their folders. */
  stop(): Promise<void>;
}

/** The redis-cli binary beside redis-server, or on PATH; undefined when absent. */
export function findRedisCli(serverBin = findRedisServer()): string | undefined {
  const beside = serverBin ? join(serverBin, '..', 'redis-cli') : undefined;
  const candidates = [beside, spawnSync('sh', ['-c', 'command -v redis-cli'], { encoding: 'utf8' }).stdout.trim()];
  return candidates.find((path) => path && spawnSync(path, ['--version']).status === 0);
}

/** Builds and starts the cluster; rejects (after stopping what it started) when it does not come up within a minute. */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  const bin = options.bin ?? findRedisServer();
  if (!bin) throw new Error('redis-server not found');
  const cliBin = findRedisCli(bin);
  if (!cliBin) throw new Error('redis-cli not found (Debian: apt-get install redis-tools)');
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  if (!Number.isInteger(masters) || masters < 3) throw new RangeError(`masters must be an integer ≥ 3, got ${masters}`);
  if (!Number.isInteger(replicas) || replicas < 0) throw new RangeError(`replicasPerMaster must be an integer ≥ 0, got ${replicas}`);
  const log = options.log ?? (() => {});
  const count = masters * (1 + replicas);
  const dir = mkdtempSync(join(tmpdir(), 'cachette-cluster-'));
  // Two ports per node: clients and the cluster bus (by default port + 10000, which may be taken).
  const ports = await distinctFreePorts(count * 2);
  const nodes: NodeProcess[] = [];
  for (let i = 0; i < count; i++) {
    nodes.push(startNode(bin, ports[i]!, ports[count + i]!, join(dir, String(i)), options));
  }
  const watches = [watchChildren(nodes.map((n) => n.child.pid!))];
  const cli = async (port: number, ...args: string[]) => (await run(cliBin, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 })).stdout;
  const cluster: RedisCluster = {
    nodes,
    seeds: nodes.map((n) => ({ host: n.host, port: n.port })),
    seedList: nodes.map((n) => `${n.host}:${n.port}`).join(','),
    kill: async (port, signal = 'SIGKILL') => {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no node of this cluster listens on ${port}`);
      await node.stop(signal);
    },
    restart: async (port) => {
      const at = nodes.findIndex((n) => n.port === port);
      if (at < 0) throw new Error(`no node of this cluster listens on ${port}`);
      if (nodes[at]!.running) throw new Error(`the node on ${port} is running`);
      const node = startNode(bin, port, ports[count + at]!, join(dir, String(at)), options);
      nodes[at] = node;
      watches.push(watchChildren([node.child.pid!]));
      await node.listening;
    },
    cli,
    masterOf: async (slot) => masterOf(await slotMap(cluster), slot),
    waitForFailover: (port, withinMs = 30_000) => waitForFailover(cluster, port, withinMs),
    settled: () => waitUntilSettled(cluster, masters, replicas),
    moveSlot: (slot, toPort, moveOptions = {}) => moveSlot(cluster, slot, toPort, moveOptions),
    busySlots: (port, count, match = '*') =>
      withNode(port, async (client) => {
        const slots = new Set<number>();
        let cursor = '0';
        do {
          const [next, keys] = await client.scanBuffer(cursor, 'MATCH', match, 'COUNT', 1000);
          for (const key of keys) if (slots.size < count) slots.add(Number(await client.call('CLUSTER', 'KEYSLOT', key)));
          cursor = String(next);
        } while (cursor !== '0' && slots.size < count);
        return [...slots];
      }),
    async errorReplies() {
      const totals: Record<string, number> = {};
      for (const node of nodes.filter((n) => n.running)) {
        for (const [name, value] of fields(await cli(node.port, 'info', 'errorstats'))) {
          const count = /count=(\d+)/.exec(value);
          if (count) totals[name.replace(/^errorstat_/, '')] = (totals[name.replace(/^errorstat_/, '')] ?? 0) + Number(count[1]);
        }
      }
      return totals;
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop('SIGTERM')));
      for (const watch of watches) watch.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((n) => n.listening));
    const started = Date.now();
    await run(cliBin, ['--cluster', 'create', ...cluster.seedList.split(','), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 60_000 });
    await waitUntilSettled(cluster, masters, replicas);
    log(`cluster of ${masters} masters × ${replicas} replicas up on ${cluster.seedList} in ${Date.now() - started} ms`);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

interface NodeProcess extends ClusterNodeProcess {
  readonly child: ChildProcess;
  readonly listening: Promise<void>;
  stop(signal: NodeJS.Signals): Promise<void>;
}

function startNode(bin: string, port: number, busPort: number, dir: string, options: ClusterOptions): NodeProcess {
  mkdirSync(dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--cluster-port',
    String(busPort),
    '--bind',
    '127.0.0.1',
    '--protected-mode',
    'no',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-node-timeout',
    String(options.nodeTimeoutMs ?? 5000),
    '--cluster-require-full-coverage',
    options.requireFullCoverage === false ? 'no' : 'yes',
    // Replicas sync at once (the default waits 5 s for more replicas to share one transfer).
    '--repl-diskless-sync-delay',
    '0',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  // The log goes to a file: a pipe nobody drains (the test runner blocks in spawnSync) would stall the node.
  const child = spawn(bin, [...args, '--logfile', join(dir, 'redis.log')], { stdio: 'ignore' });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const listening = Promise.race([waitForPort(port, 10_000), exit.then(() => Promise.reject(new Error(`redis-server on ${port} exited before listening (see ${join(dir, 'redis.log')})`)))]);
  listening.catch(() => {}); // Awaited by the caller; a late rejection must not go unhandled.
  return {
    host: '127.0.0.1',
    port,
    child,
    listening,
    get pid() {
      return exited ? undefined : child.pid;
    },
    get running() {
      return !exited;
    },
    async stop(signal) {
      if (exited) return;
      child.kill(signal);
      await exit;
    },
  };
}

/** Free ports, all different (two asks of the kernel may hand out the same one). */
async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** Parses `INFO`-style `key:value` lines. */
function fields(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) map.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return map;
}

/** Waits until every node sees a healthy cluster of the expected shape and every replica is in sync. */
async function waitUntilSettled(cluster: RedisCluster, masters: number, replicas: number): Promise<void> {
  const total = masters * (1 + replicas);
  const until = Date.now() + 30_000;
  for (;;) {
    const states = await Promise.all(
      cluster.nodes.map(async (n) => {
        const info = fields(await cluster.cli(n.port, 'cluster', 'info'));
        const replication = fields(await cluster.cli(n.port, 'info', 'replication'));
        return (
          info.get('cluster_state') === 'ok' &&
          info.get('cluster_slots_ok') === '16384' &&
          info.get('cluster_known_nodes') === String(total) &&
          (replication.get('role') === 'master' ? replication.get('connected_slaves') === String(replicas) : replication.get('master_link_status') === 'up')
        );
      }),
    );
    if (states.every(Boolean)) return;
    if (Date.now() > until) throw new Error(`the cluster on ${cluster.seedList} did not settle within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Slot ranges and the port of the master serving each, from CLUSTER SLOTS on a running node. */
type SlotRanges = Array<{ from: number; to: number; port: number }>;

async function slotMap(cluster: RedisCluster): Promise<SlotRanges> {
  const node = cluster.nodes.find((n) => n.running);
  if (!node) throw new Error('no node of the cluster is running');
  return withNode(node.port, async (client) => {
    const ranges = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]], ...unknown[]]>;
    return ranges.map(([from, to, master]) => ({ from, to, port: master[1] }));
  });
}

function masterOf(ranges: SlotRanges, slot: number): number {
  const range = ranges.find((r) => r.from <= slot && slot <= r.to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  return range.port;
}

async function waitForFailover(cluster: RedisCluster, port: number, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const healthy = await Promise.all(
      cluster.nodes
        .filter((n) => n.running)
        .map(async (n) => {
          const info = fields(await cluster.cli(n.port, 'cluster', 'info'));
          const served = await withNode(n.port, async (client) => (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>);
          return info.get('cluster_state') === 'ok' && served.every(([, , master]) => master[1] !== port);
        }),
    ).catch(() => [false]);
    if (healthy.every(Boolean)) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`no replica took over the slots of ${port} within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function moveSlot(cluster: RedisCluster, slot: number, toPort: number, options: { keysPerBatch?: number; pauseMs?: number }): Promise<void> {
  const fromPort = masterOf(await slotMap(cluster), slot);
  if (fromPort === toPort) return;
  const masters = [...new Set((await slotMap(cluster)).map((r) => r.port))];
  const idOf = (port: number) => withNode(port, async (client) => String(await client.call('CLUSTER', 'MYID')));
  const [fromId, toId] = await Promise.all([idOf(fromPort), idOf(toPort)]);
  await withNode(toPort, (to) => to.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId));
  await withNode(fromPort, async (from) => {
    await from.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
    for (;;) {
      const keys = (await from.callBuffer('CLUSTER', 'GETKEYSINSLOT', slot, options.keysPerBatch ?? 5)) as Buffer[];
      if (keys.length === 0) break;
      await from.callBuffer('MIGRATE', '127.0.0.1', toPort, '', 0, 5000, 'KEYS', ...keys);
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
  });
  // The new owner first, then the old one, then everyone else (the order redis-cli uses).
  for (const port of [toPort, fromPort, ...masters.filter((p) => p !== toPort && p !== fromPort)]) {
    await withNode(port, (client) => client.call('CLUSTER', 'SETSLOT', slot, 'NODE', toId));
  }
}

/** Runs `use` with a short-lived admin connection to one node. */
async function withNode<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {}); // The command's own rejection says what went wrong.
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}
