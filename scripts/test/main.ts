/**
 * `npm test`: starts what the suites need (a redis-server on a free port, installed with apt
 * when missing and allowed, and a local Redis Cluster of 3 masters and 3 replicas built from
 * it), runs every suite on Node, Bun, Deno and workerd, the package check and lint, prints a
 * table of tests per runtime per suite, and says loudly what it could not run. With CI=true
 * nothing may be skipped.
 *
 * `npm test -- <path filter>… [-t <name>]` narrows every runner to the files whose paths contain
 * a filter (and the tests whose names match), starts only the services those files need, and
 * skips lint and the package check unless a filter names test/package.
 */
import { readFileSync } from 'node:fs';
import { findPostgresBin } from '../../bench/support/postgres.ts';
import { spawnBridge } from '../../test/support/bridge-process.ts';
import { startRedisCluster, type RedisCluster } from '../../test/support/redis-cluster.ts';
import { findRedisServer, startRedis, type RedisServer } from '../../test/support/redis-server.ts';
import { runBun } from './bun.ts';
import type { RuntimeRun } from '../../test/runtimes/junit.ts';
import { runDeno } from './deno.ts';
import { runLint } from './lint.ts';
import { runPackageCheck } from './package.ts';
import { neededServices, parseTestArgs, planRun, type Runner } from './plan.ts';
import { printSummary, type SuiteResult } from './summary.ts';
import { runVitest, vitestSelection } from './vitest.ts';
import { runWorkerd } from './workerd.ts';

const strict = process.env.CI === 'true' || process.env.CACHETTE_REQUIRE_ALL === '1';
const mayInstall = process.env.CACHETTE_NO_INSTALL !== '1' && process.getuid?.() === 0;
const problems: string[] = [];
/** Why the Debian package `name` is still missing after {@link mayInstall} allowed or forbade installing it. */
const notInstalled = (name: string) =>
  process.env.CACHETTE_NO_INSTALL === '1'
    ? 'CACHETTE_NO_INSTALL=1 forbids installing it'
    : process.getuid?.() !== 0
      ? `installing it needs root (apt-get install ${name})`
      : `apt-get install ${name} did not install it`;
const results: SuiteResult[] = [];

let args: ReturnType<typeof parseTestArgs>;
try {
  args = parseTestArgs(process.argv.slice(2));
} catch (error) {
  console.error(`[test] ${(error as Error).message}`);
  process.exit(2);
}
const plan = planRun(process.cwd(), args);
const narrowed = args.filters.length > 0 || args.testName !== undefined;
const selected = (runner: Runner) => plan[runner].files.length > 0;
if (narrowed) {
  const counts = (Object.keys(plan) as Runner[]).map((runner) => `${runner} ${plan[runner].files.length}`).join(', ');
  console.log(`[test] narrowed to ${[...args.filters, ...(args.testName === undefined ? [] : [`-t ${args.testName}`])].join(' ')}: files per runner: ${counts}`);
}
// A full run starts everything, as a release check must; a narrowed one only what its files need.
const needs = narrowed ? neededServices(process.cwd(), plan) : new Set(['redis', 'cluster']);
const otherRuntimes = selected('bun') || selected('deno') || selected('workerd');

let redis: RedisServer | undefined;
let cluster: RedisCluster | undefined;
const bin = needs.has('redis') || needs.has('cluster') ? findRedisServer({ install: mayInstall }) : undefined;
// The cluster comes up (~2 s) while the single server starts; its nodes die with this process even on a crash.
const clusterStarting = !needs.has('cluster') || process.env.VALKEY_CLUSTER_NODES || !bin ? undefined : startRedisCluster({ bin }).catch((error: Error) => error);
if (!needs.has('redis')) {
  // Nothing selected needs a server.
} else if (process.env.REDIS_URL) {
  console.log(`[test] using the Valkey/Redis server at REDIS_URL=${process.env.REDIS_URL}`);
} else if (bin) {
  redis = await startRedis({ bin });
  process.env.REDIS_URL = redis.url;
  process.env.REDIS_SERVER_BIN = bin;
  console.log(`[test] started ${bin} on ${redis.url}`);
} else {
  problems.push(`the Valkey suites on node, bun and deno (store contract, HTTP behaviour, engine failures, bridge, serve helpers): redis-server is not installed and ${notInstalled('redis-server')}`);
}
if (!needs.has('cluster')) {
  // Nothing selected needs the cluster.
} else if (process.env.VALKEY_CLUSTER_NODES) {
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

// The PostgreSQL suites start a throwaway cluster of their own (test/adapters/postgres-server.ts)
// from Debian's server binaries: installed here when missing and allowed, so that they never
// skip quietly; where they cannot be, the summary says so (and CI fails).
const postgresFiles = plan.node.files.filter((file) => /postgres-server|bench\/support\/postgres/.test(readFileSync(file, 'utf8')));
if (postgresFiles.length > 0 && !findPostgresBin({ install: mayInstall })) {
  problems.push(`the PostgreSQL suites on node (${postgresFiles.join(', ')}): PostgreSQL's server is not installed and ${notInstalled('postgresql')}`);
}

try {
  // A narrowed run (npm test -- test/cache) is not a release check: no lint.
  if (!narrowed) results.push(...runLint());
  // One runner after another. Running the Node suites beside the package checks (npm installs,
  // tsc, builds) was measured (docs/testing.md, "CI time"): under load it failed timing-bound
  // cases of the coherent-L1 fault and process suites, so each runner has the cores to itself.
  if (selected('node')) results.push(...(await runVitest(vitestSelection(plan.node))));
  if (selected('package')) results.push(...(await runPackageCheck(plan.package)));
  results.push(...(await runOtherRuntimes()));
} finally {
  await Promise.all([redis?.stop(), cluster?.stop()]);
}

/**
 * The same suites on the other runtimes, each against every store it can reach: Upstash through
 * a local bridge in front of the same redis-server, handed over by environment. The bridge runs
 * in its own process: the runners below block this one's event loop (spawnSync).
 */
async function runOtherRuntimes(): Promise<SuiteResult[]> {
  if (!otherRuntimes) return [];
  const bridge = process.env.REDIS_URL
    ? await spawnBridge(process.env.REDIS_URL).catch((error: Error) => void problems.push(`the Upstash bridge did not start (${error.message}): no upstash suites on Bun, Deno and workerd`))
    : narrowed && !needs.has('redis')
      ? undefined
      : void problems.push('no Redis server, so no Upstash bridge: no upstash suites on Bun, Deno and workerd');
  if (bridge) Object.assign(process.env, { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token });
  const rows: SuiteResult[] = [];
  const collect = (run: RuntimeRun) => {
    rows.push(...run.results);
    problems.push(...run.problems);
  };
  try {
    if (selected('bun')) collect(runBun(plan.bun));
    if (selected('deno')) collect(runDeno(plan.deno));
    if (selected('workerd')) collect(await runWorkerd(plan.workerd));
  } finally {
    await bridge?.stop();
  }
  return rows;
}

// Tests a name pattern leaves out are reported as skipped by every runner: they are not missing.
const ok = printSummary(results, problems, strict, { skipsAreProblems: args.testName === undefined });
process.exit(ok ? 0 : 1);
