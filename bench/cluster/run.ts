/**
 * The cluster benchmark: a local Redis Cluster (3 masters, 1 replica each) on loopback, the seven
 * phases at 50 calls in flight for cachette on the cluster store and for the raw cluster
 * clients, then two fault drills through the caching proxy (a master killed and failed over;
 * busy slots resharded under load). Raw numbers go to bench/results/cluster.json; a full run
 * also regenerates bench/README.md (its "Cluster" section comes from that file).
 *
 *   npx tsx bench/cluster/run.ts            full run (~4 min on 2 cores)
 *   npx tsx bench/cluster/run.ts --quick    smoke run (< 1 min), writes results/cluster-quick.json only
 *   npx tsx bench/cluster/run.ts --quick --no-drills   the phases only (no fault drills)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDrill } from '../../test/support/cluster-drill.ts';
import { startRedisCluster } from '../../test/support/redis-cluster.ts';
import { clusterContenders } from '../contenders/cluster.ts';
import { runPhases, type ContenderResult } from '../phases/run-phases.ts';
import { clusterDrillTable } from '../report/cluster-section.ts';
import { writeReadme } from '../report/readme.ts';
import type { BenchResults } from '../report/results.ts';
import { phaseTable } from '../report/tables.ts';
import { readConfig } from '../support/config.ts';
import { commitForPage, describeEnvironment, gitCommit } from '../support/environment.ts';
import { isSmallValue, smallValue } from '../support/payloads.ts';
import { ClusterMonitor } from './cluster-monitor.ts';
import type { ClusterBenchResults } from './results.ts';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const log = (line: string) => console.error(`[${Math.round((performance.now() - started) / 1000)} s] ${line}`);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const cfg = readConfig(args);
  // A full run rewrites the cluster section of bench/README.md: checked before the cluster starts.
  const commit = cfg.quick ? gitCommit() : commitForPage('npx tsx bench/cluster/run.ts', args);
  const loadAtStart = loadavg()[0]!;
  const shape = { masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1000 };
  const cluster = await startRedisCluster({ ...shape, log });
  const masters = [...new Set(await Promise.all([0, 8192, 16383].map((slot) => cluster.masterOf(slot))))];
  const monitor = new ClusterMonitor(masters);
  try {
    const version = (await cluster.cli(masters[0]!, 'info', 'server')).match(/redis_version:(\S+)/)?.[1] ?? 'unknown';
    log(`${cfg.quick ? 'quick' : 'full'} run: ${cfg.nOps} calls × ${cfg.kRuns} runs per phase, ${cfg.concurrency} in flight`);
    const phases: ContenderResult[] = [];
    for (const spec of clusterContenders) {
      log(`phases: ${spec.label}`);
      phases.push(
        await runPhases(spec, {
          url: cluster.seedList,
          monitor,
          n: cfg.nOps,
          kRuns: cfg.kRuns,
          batch: cfg.batch,
          concurrency: cfg.concurrency,
          value: smallValue,
          check: isSmallValue,
          onPhase: (p) => log(`  ${p.phase}: ${p.callsPerSec.toLocaleString('en-US')} calls/s, ${p.cpuUsPerCall} µs CPU/call${p.wrong ? ` (${p.wrong} FAILED CHECKS)` : ''}`),
        }),
      );
    }
    if (process.argv.includes('--no-drills')) {
      console.log(`\n${phaseTable(phases)}\n\nload average ${loadAtStart.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}\n`);
      return;
    }
    const drill = { warmupMs: cfg.quick ? 800 : 2000, holdMs: cfg.quick ? 500 : 1000 };
    log('drill: a master killed under load');
    const victim = masters[0]!;
    const failover = await runDrill({
      cluster,
      ...drill,
      fault: async () => {
        await cluster.kill(victim);
        await cluster.waitForFailover(victim);
      },
    });
    log('drill: busy slots resharded under load');
    const from = await cluster.masterOf(16383);
    const to = await cluster.masterOf(8192);
    let slotsMoved = 0;
    const reshard = await runDrill({
      cluster,
      ...drill,
      fault: async () => {
        for (const slot of await cluster.busySlots(from, cfg.quick ? 2 : 8, '*/item/*')) {
          await cluster.moveSlot(slot, to, { keysPerBatch: 1, pauseMs: 100 });
          slotsMoved++;
        }
      },
    });
    const results: ClusterBenchResults = {
      date: new Date().toISOString(),
      commit,
      durationS: Math.round((performance.now() - started) / 1000),
      config: cfg,
      environment: describeEnvironment(version),
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      shape,
      phases,
      drills: { failover, reshard: { ...reshard, slotsMoved } },
    };
    const dir = join(here, 'results');
    mkdirSync(dir, { recursive: true });
    const file = cfg.quick ? 'cluster-quick.json' : 'cluster.json';
    writeFileSync(join(dir, file), `${JSON.stringify(results, null, 1)}\n`);
    console.log(`\n${phaseTable(phases)}\n\n${clusterDrillTable(results)}\n`);
    log(`results written to bench/results/${file}`);
    if (!cfg.quick && existsSync(join(dir, 'full.json'))) {
      writeReadme(here, JSON.parse(readFileSync(join(dir, 'full.json'), 'utf8')) as BenchResults, 'results/full.json');
      log('bench/README.md regenerated (its cluster section from results/cluster.json)');
    }
    const failed = phases.flatMap((r) => r.phases.filter((p) => p.wrong > 0).map((p) => `${r.id}/${p.phase}`));
    if (failed.length) log(`failed checks (flagged in the report): ${failed.join(', ')}`);
  } finally {
    await monitor.close();
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
