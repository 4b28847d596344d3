/**
 * `npm run bench:race` (issue 9): four reader processes read one PostgreSQL row through a
 * cache while one writer updates it at random moments (exponential gaps, 10 ms on average),
 * for every contender and scenario; a read is stale when it returned a version older than one
 * whose COMMIT had returned before the read began (analyse.ts). PostgreSQL and redis-server
 * are throwaways started here; the +250 µs and +1 ms scenarios put bench/network's user-space
 * delay proxy between every process and redis (not PostgreSQL).
 *
 * `--quick`: 40 writes, two scenarios, results/race-quick.json only (the page is left alone).
 * `RACE_ONLY=tags,l1-strict` runs those contenders only (plus the two self-checks).
 * `RACE_IN_FLIGHT=1`: one read in flight per reader instead of two. The cluster rows start a
 * throwaway Redis Cluster (3 masters, no replicas) when redis-cli is there, and are left out
 * otherwise. The SQLite rows share one database file per run in a temporary directory.
 * `--report-only`: RACE.md and its chart from results/race.json. `--allow-dirty`: a full run on a
 * tree with uncommitted changes (refused otherwise: the page would name a commit it did not measure).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { commitForPage, gitCommit } from '../support/environment.ts';
import { spawnProxy, type ProxyProcess } from '../network/proxy-process.ts';
import { startOwnedRedis } from '../support/owned-redis.ts';
import { childLines } from '../../test/support/child-lines.ts';
import { findRedisCli, startRedisCluster, type RedisCluster } from '../../test/support/redis-cluster.ts';
import { analyse, type RaceFigures } from './analyse.ts';
import { CONTENDERS } from './contenders.ts';
import { startPostgres } from '../support/postgres.ts';
import type { RaceTask } from './process.ts';
import { fmt, writeRaceReport, type RaceResults, type RaceScenario } from './report.ts';

const quick = process.argv.includes('--quick');
/** The machine's 1-minute load average as the run starts: the page prints it beside the end's. */
const loadAtStart = loadavg()[0]!;
const here = dirname(fileURLToPath(import.meta.url));
const READERS = 4;
const WRITES = quick ? 40 : Number(process.env.RACE_WRITES ?? 500);
const IN_FLIGHT = Number(process.env.RACE_IN_FLIGHT ?? 2);
const ONLY = process.env.RACE_ONLY?.split(',');
/** A cluster for the cluster rows, when they run and redis-cli is there. */
const WITH_CLUSTER = findRedisCli() !== undefined;
/** The contenders of this run: the two self-checks always run. */
const RUN = CONTENDERS.filter((c) => (!ONLY || ONLY.includes(c.id) || c.id === 'no-cache' || c.id === 'never') && (WITH_CLUSTER || !c.needsCluster));

const SCENARIOS: RaceScenario[] = [
  { id: 'autocommit', label: 'autocommit', delayUs: 0, slowCommitMs: 0 },
  { id: 'slow-commit', label: 'commits 2 ms slower', delayUs: 0, slowCommitMs: 2 },
  { id: 'delay-250', label: '+250 µs per cache round trip', delayUs: 250, slowCommitMs: 0 },
  { id: 'delay-1000', label: '+1 ms per cache round trip', delayUs: 1000, slowCommitMs: 0 },
].filter((s) => !quick || s.id === 'autocommit' || s.id === 'delay-250');

/** A child process of the run, with its stdout read line by line. */
interface Child {
  process: ChildProcess;
  line(): Promise<string>;
  send(line: string): void;
}

function start(task: RaceTask): Child {
  const child = spawn(process.execPath, [...process.execArgv, join(here, 'process.ts'), JSON.stringify(task)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const next = childLines(child);
  // 'close', not 'exit': a child's last line (its figures) can arrive after its exit event.
  const exited = new Promise<never>((_, reject) => child.once('close', (code) => reject(new Error(`a ${task.role} of ${task.contender} exited with ${code}`))));
  exited.catch(() => undefined);
  return {
    process: child,
    line: () => Promise.race([next(), exited]),
    send: (text) => void child.stdin!.write(`${text}\n`),
  };
}

async function runOne(scenario: RaceScenario, contenderId: string, redisUrl: string, pgUrl: string, db: pg.Client, clusterNodes: string | undefined): Promise<RaceFigures> {
  await db.query('UPDATE race SET version = 0 WHERE id = 1');
  const sqliteDir = mkdtempSync(join(tmpdir(), 'cachette-race-sqlite-'));
  const base = {
    stores: { sqlitePath: join(sqliteDir, 'race.db'), clusterNodes },
    contender: contenderId,
    redisUrl,
    pgUrl,
    namespace: `race-${scenario.id}-${contenderId}-${Date.now().toString(36)}`,
    writes: WRITES,
    slowCommitMs: scenario.slowCommitMs,
    meanGapMs: 10,
    inFlight: IN_FLIGHT,
  };
  const readers = Array.from({ length: READERS }, () => start({ ...base, role: 'reader' }));
  const writer = start({ ...base, role: 'writer' });
  const all = [...readers, writer];
  for (const c of all) if ((await c.line()) !== 'ready') throw new Error('a process did not start');
  const began = Number(process.hrtime.bigint()) / 1e6;
  for (const r of readers) r.send('go');
  // Readers warm up for 100 ms (the first fill), then the writer starts.
  await new Promise((resolve) => setTimeout(resolve, 100));
  writer.send('go');
  const { commits } = JSON.parse(await writer.line()) as { commits: number[] };
  for (const r of readers) r.send('stop');
  const results = await Promise.all(readers.map(async (r) => JSON.parse(await r.line()) as { reads: number[]; took: number[]; loads: number }));
  const ended = Number(process.hrtime.bigint()) / 1e6;
  await Promise.all(all.map((c) => new Promise((resolve) => (c.process.exitCode === null ? c.process.once('exit', resolve) : resolve(undefined)))));
  rmSync(sqliteDir, { recursive: true, force: true });
  const reads = results.flatMap((r) => r.reads);
  return analyse(
    commits,
    reads,
    results.reduce((n, r) => n + r.loads, 0),
    ended - began,
    results.flatMap((r) => r.took),
  );
}

async function main(): Promise<void> {
  const resultsDir = join(here, '..', 'results');
  if (process.argv.includes('--report-only')) {
    writeRaceReport(join(here, '..'), JSON.parse(readFileSync(join(resultsDir, 'race.json'), 'utf8')) as RaceResults);
    console.error('bench/RACE.md and its chart rebuilt from bench/results/race.json');
    return;
  }
  // Only a full run of every contender rewrites RACE.md: checked before anything starts.
  const commit = quick || ONLY ? gitCommit() : commitForPage('npm run bench:race', process.argv.slice(2));
  const redis = await startOwnedRedis();
  if (!redis) throw new Error('bench:race needs redis-server (apt-get install redis-server)');
  const postgres = await startPostgres();
  const db = new pg.Client({ connectionString: postgres.url });
  const table: Record<string, Record<string, RaceFigures>> = {};
  let proxy: ProxyProcess | undefined;
  let cluster: RedisCluster | undefined;
  try {
    if (RUN.some((c) => c.needsCluster)) cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
    await db.connect();
    await db.query('CREATE TABLE race (id int PRIMARY KEY, version int NOT NULL)');
    await db.query('INSERT INTO race VALUES (1, 0)');
    for (const scenario of SCENARIOS) {
      proxy = scenario.delayUs > 0 ? await spawnProxy(redis.url, scenario.delayUs) : undefined;
      const url = proxy?.url ?? redis.url;
      table[scenario.id] = {};
      for (const contender of RUN) {
        // The delay scenarios slow the redis-server's round trips only; the cluster's stay as they are.
        const figures = await runOne(scenario, contender.id, url, postgres.url, db, cluster?.seedList);
        table[scenario.id]![contender.id] = figures;
        console.error(
          `${scenario.label} · ${contender.label}: ${fmt(figures.stalePerThousand, 1)} stale/1000, ${figures.episodes} episodes, hit ${fmt(figures.hitRatio * 100, 1)} %, ${fmt(figures.readsPerSecond)} reads/s, read p50 ${fmt(figures.readP50Us, 1)} µs`,
        );
      }
      await proxy?.stop();
      proxy = undefined;
    }
  } finally {
    await proxy?.stop();
    await cluster?.stop();
    await db.end().catch(() => undefined);
    await postgres.stop();
    await redis.stop();
  }
  const checks = SCENARIOS.map((s) => {
    const none = table[s.id]!['no-cache']!;
    const never = table[s.id]!.never!;
    return { scenario: s.id, noCacheZero: none.stalePerThousand === 0, neverNearAll: never.stalePerThousand > 900 };
  });
  const results: RaceResults = {
    date: new Date().toISOString(),
    commit,
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    quick,
    writes: WRITES,
    readers: READERS,
    inFlightPerReader: IN_FLIGHT,
    scenarios: SCENARIOS,
    table,
    checks,
  };
  mkdirSync(resultsDir, { recursive: true });
  const file = quick ? 'race-quick.json' : 'race.json';
  writeFileSync(join(resultsDir, file), `${JSON.stringify(results, null, 2)}\n`);
  console.error(`results written to bench/results/${file}`);
  if (!quick && !ONLY) {
    writeRaceReport(join(here, '..'), results);
    console.error('bench/RACE.md and its chart regenerated');
  }
  if (checks.some((c) => !c.noCacheZero || !c.neverNearAll)) {
    console.error('bench:race: a self-check failed (see ⚠ in the table)');
    process.exitCode = 1;
  }
}

await main();
