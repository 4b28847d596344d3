/**
 * `npm test`: starts what the suites need (a redis-server on a free port, installed with apt
 * when missing and allowed, and a local Redis Cluster of 3 masters and 3 replicas built from
 * it), runs every suite, prints a table of tests per runtime per suite, and says loudly what it
 * could not run. With CI=true nothing may be skipped.
 */
import { spawnBridge } from '../../test/support/bridge-process.ts';
import { startRedisCluster, type RedisCluster } from '../../test/support/redis-cluster.ts';
import { findRedisServer, startRedis, type RedisServer } from '../../test/support/redis-server.ts';
import { printSummary, type SuiteResult } from './summary.ts';
import { runBun } from './bun.ts';
import { runDeno } from './deno.ts';
import { runLint } from './lint.ts';
import { runPackageCheck } from './package.ts';
import { runVitest } from './vitest.ts';
import { runWorkerd } from './workerd.ts';

const strict = process.env.CI === 'true' || process.env.CACHETTE_REQUIRE_ALL === '1';
const mayInstall = process.env.CACHETTE_NO_INSTALL !== '1' && process.getuid?.() === 0;
const problems: string[] = [];
const results: SuiteResult[] = [];

let redis: RedisServer | undefined;
let cluster: RedisCluster | undefined;
const bin = findRedisServer({ install: mayInstall });
// The cluster comes up (~2 s) while the single server starts; its nodes die with this process even on a crash.
const clusterStarting = process.env.VALKEY_CLUSTER_NODES || !bin ? undefined : startRedisCluster({ bin }).catch((error: Error) => error);
if (process.env.REDIS_URL) {
  console.log(`[test] using the Valkey/Redis server at REDIS_URL=${process.env.REDIS_URL}`);
} else if (bin) {
  redis = await startRedis({ bin });
  process.env.REDIS_URL = redis.url;
  process.env.REDIS_SERVER_BIN = bin;
  console.log(`[test] started ${bin} on ${redis.url}`);
} else {
  const why =
    process.env.CACHETTE_NO_INSTALL === '1'
      ? 'CACHETTE_NO_INSTALL=1 forbids installing it'
      : process.getuid?.() !== 0
        ? 'installing it needs root (apt-get install redis-server)'
        : 'apt-get install redis-server did not install it';
  problems.push(`the Valkey suites on node, bun and deno (store contract, HTTP behaviour, engine failures, bridge, serve helpers): redis-server is not installed and ${why}`);
}
if (process.env.VALKEY_CLUSTER_NODES) {
  console.log(`[test] using the Valkey/Redis Cluster at VALKEY_CLUSTER_NODES=${process.env.VALKEY_CLUSTER_NODES}`);
} else if (clusterStarting) {
  const started = await clusterStarting;
  if (started instanceof Error) problems.push(`the Valkey Cluster suites on node, bun and deno: the local cluster did not start (${started.message})`);
  else {
    cluster = started;
    process.env.VALKEY_CLUSTER_NODES = cluster.seedList;
    console.log(`[test] started a Redis Cluster (3 masters, 3 replicas) on ${cluster.seedList}`);
  }
} else {
  problems.push('the Valkey Cluster suites on node, bun and deno: no redis-server to build the local cluster from');
}

try {
  const filters = process.argv.slice(2);
  // A run narrowed to some files (npm test -- test/cache) is not a release check: no lint, no package check.
  if (filters.length === 0) results.push(...runLint());
  results.push(...(await runVitest(filters)));
  if (filters.length === 0) results.push(...(await runPackageCheck()));
  // The same suites on the other runtimes, each against every store it can reach: Upstash
  // through a local bridge in front of the same redis-server, handed over by environment. The
  // bridge runs in its own process: the runners below block this one's event loop (spawnSync).
  const bridge = process.env.REDIS_URL
    ? await spawnBridge(process.env.REDIS_URL).catch((error: Error) => void problems.push(`the Upstash bridge did not start (${error.message}): no upstash suites on Bun, Deno and workerd`))
    : void problems.push('no Redis server, so no Upstash bridge: no upstash suites on Bun, Deno and workerd');
  if (bridge) Object.assign(process.env, { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token });
  try {
    for (const run of [runBun(), runDeno(), await runWorkerd()]) {
      results.push(...run.results);
      problems.push(...run.problems);
    }
  } finally {
    await bridge?.stop();
  }
} finally {
  await Promise.all([redis?.stop(), cluster?.stop()]);
}

const ok = printSummary(results, problems, strict);
process.exit(ok ? 0 : 1);
