/**
 * `npm run bench:fullstack`: the same Hono app under wrk on Node (one process and a 2-worker
 * cluster), Bun, Deno and workerd, against every contender that runs there. Per target, every
 * row's server starts, is checked and warmed up, then the rows take turns for a few rounds of
 * short windows (see run-target.ts), with the server's CPU time, RSS and store connections
 * read from /proc around each window. Progress on stderr; results as JSON under
 * bench/fullstack/results/; full runs regenerate bench/FULLSTACK.md and its charts.
 *
 *   npm run bench:fullstack                          full run (≤ 15 min on 2 cores)
 *   npm run bench:fullstack -- --quick               smoke run: every row, two 1-s windows (~4 min)
 *   npm run bench:fullstack -- --runtime node,bun    only these targets (writes results/partial.json)
 *   npm run bench:fullstack -- --contender cachette,iovalkey,cachette-page   (pages: none-page, cachette-page, hono-cache-page)
 *   npm run bench:fullstack -- --report-only         rebuild FULLSTACK.md from results/full.json
 *   npm run bench:fullstack -- --allow-dirty         a full run on a tree with uncommitted changes (refused otherwise)
 *
 * Knobs: FULLSTACK_WINDOW_S, FULLSTACK_ROUNDS, FULLSTACK_PAGE_ROUNDS, FULLSTACK_WARMUP_MIN_S,
 * FULLSTACK_WARMUP_MAX_S, FULLSTACK_CONNECTIONS, FULLSTACK_THREADS, FULLSTACK_NO_PIN=1.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEnvironment } from '../support/environment.ts';
import { ServerMonitor } from '../support/server.ts';
import { readFullstackConfig } from './config.ts';
import { connectionsOf } from './measure.ts';
import { TARGETS } from './plan.ts';
import { writeFullstackReport } from './report/page.ts';
import { measured, summarize } from './report/summary.ts';
import type { FullstackResults, TargetResult } from './results.ts';
import { commitForPage, gitCommit } from '../support/environment.ts';
import { readResults, runtimeVersions } from './results.ts';
import type { PlannedRow, TargetContext } from './row-server.ts';
import { runTarget, type RowResult } from './run-target.ts';
import { delay, liveGroups } from './support/launch.ts';
import { cpuTimes } from './support/proc.ts';
import { ROOT, startBridgeService, startRedisService } from './support/services.ts';
import { bundleWorker, type WorkerBundle } from './support/worker-bundle.ts';

const started = performance.now();
const log = (line: string) => {
  const s = Math.round((performance.now() - started) / 1000);
  console.error(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}`);
};
const resultsDir = join(ROOT, 'bench/fullstack/results');

// Interrupted: exit, and the launcher's exit hook kills every process group it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--report-only')) {
    writeFullstackReport(readResults(join(resultsDir, 'full.json')));
    log('bench/FULLSTACK.md and its charts rebuilt from bench/fullstack/results/full.json');
    return;
  }
  const cfg = readFullstackConfig(argv);
  const loadAtStart = loadavg()[0]!;
  const targets = TARGETS.filter((t) => cfg.targets.includes(t.id));
  // Only a full run of every target rewrites FULLSTACK.md: checked before anything starts.
  const commit = cfg.quick || cfg.only !== undefined || targets.length !== TARGETS.length ? gitCommit() : commitForPage('npm run bench:fullstack', argv);
  const selected = (rows: readonly PlannedRow[]) => rows.filter((r) => !cfg.only || cfg.only.has(r.kind === 'work' ? r.row.contender : `${r.row.page}-page`));
  log(
    `${cfg.quick ? 'quick' : 'full'} run of ${commit}: ${targets.map((t) => t.id).join(', ')}; ${cfg.connections} connections, warm-up ${cfg.warmupMinS}–${cfg.warmupMaxS} s, ${cfg.rounds} rounds of ${cfg.windowS} s windows (pages ${cfg.pageRounds}); server on CPU ${cfg.serverCpus ?? 'any'}, wrk + redis-server + bridge on CPU ${cfg.loadCpus ?? 'any'}; load average ${loadAtStart.toFixed(2)}`,
  );

  const redis = await startRedisService(cfg.loadCpus);
  const monitor = new ServerMonitor(redis.url);
  const denoDir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-deno-'));
  let bundle: WorkerBundle | undefined;
  // Interrupted or not, the run's temporary directories go with it.
  process.on('exit', () => {
    rmSync(denoDir, { recursive: true, force: true });
    bundle?.remove();
  });
  const out: TargetResult[] = [];
  try {
    const server = (await monitor.info('server')).get('redis_version') ?? 'unknown';
    const baselineClients = await connectedClients(monitor);
    if (targets.some((t) => t.server === 'workerd')) {
      log('bundling the Worker with wrangler');
      bundle = bundleWorker();
    }
    for (const target of targets) {
      const idleBusy = await idleCoreBusyPct(cfg.serverCpus);
      log(`== ${target.label}${idleBusy === undefined ? '' : ` (server core ${idleBusy} % busy with other processes before it)`}`);
      const targetStarted = performance.now();
      const targetLoad = loadavg()[0]!;
      const bridge = target.store === 'bridge' ? await startBridgeService(redis.url, cfg.loadCpus) : undefined;
      try {
        const ctx: TargetContext = { cfg, target, monitor, redis, bridge, bundle, denoDir, log };
        const planned: PlannedRow[] = [...target.work.map((row) => ({ kind: 'work' as const, row })), ...target.pages.map((row) => ({ kind: 'page' as const, row }))];
        const rows = await runTarget(ctx, selected(planned));
        for (const row of rows) report(row);
        out.push({
          id: target.id,
          label: target.label,
          notes: target.notes,
          connections: connectionsOf(ctx),
          durationS: Math.round((performance.now() - targetStarted) / 1000),
          loadAverage: { start: targetLoad, end: loadavg()[0]! },
          ...(idleBusy === undefined ? {} : { idleCoreBusyPct: idleBusy }),
          work: rows.filter((r) => r.kind === 'work'),
          pages: rows.filter((r) => r.kind === 'page'),
        });
      } finally {
        await bridge?.stop();
      }
      await settle(monitor, redis.launched.pgid, baselineClients);
    }
    const results: FullstackResults = {
      date: new Date().toISOString(),
      commit,
      durationS: Math.round((performance.now() - started) / 1000),
      config: { ...cfg, only: cfg.only ? [...cfg.only] : null },
      environment: { ...describeEnvironment(server), runtimes: runtimeVersions() },
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      targets: out,
    };
    const partial = cfg.only !== undefined || targets.length !== TARGETS.length;
    const file = cfg.quick ? 'quick.json' : partial ? 'partial.json' : 'full.json';
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, file), `${JSON.stringify(results, null, 1)}\n`);
    log(`results written to bench/fullstack/results/${file} (${Math.round(results.durationS / 60)} min)`);
    if (file === 'full.json') {
      writeFullstackReport(results);
      log('bench/FULLSTACK.md and its charts regenerated');
    }
  } finally {
    await monitor.close();
    await redis.stop();
    bundle?.remove();
    rmSync(denoDir, { recursive: true, force: true });
  }
}

/** Logs a row's headline once its target is done. */
function report(row: RowResult): void {
  if (row.status !== 'ok') log(`  ${row.label}: ${row.status}: ${row.reason}`);
  if (!measured(row)) return;
  const s = summarize(row);
  const e = s.errors;
  log(
    `  ${row.id}: ${Math.round(s.reqPerSec).toLocaleString('en-US')} req/s (${s.reqPerSecRange.map((r) => Math.round(r).toLocaleString('en-US')).join('–')}), p99 ${s.latencyP99Ms.toFixed(1)} ms, server CPU ${s.cpuMsPerRequest?.toFixed(3) ?? '—'} ms/req, RSS ${s.rss.warmMiB.toFixed(0)}→${s.rss.peakMiB.toFixed(0)} MiB, conns ${s.connections.peak}, errors ${e.non2xx}/${e.socket}/${e.exceptions}${s.otherCpuPct === undefined ? '' : `, others on its core ${s.otherCpuPct.toFixed(0)} %`}`,
  );
  for (const line of row.exceptionLines ?? []) log(`  exception: ${line}`);
}

/**
 * Between targets: nothing the last target started may still run (a leftover process would
 * take CPU from the next target's rows), its connections must be gone, and the store is emptied.
 */
async function settle(monitor: ServerMonitor, redisGroup: number, baselineClients: number): Promise<void> {
  const left = liveGroups().filter((g) => g.pgid !== redisGroup);
  if (left.length > 0) throw new Error(`processes of the last target are still running: ${left.map((g) => g.name).join(', ')}`);
  for (let i = 0; i < 50 && (await connectedClients(monitor)) > baselineClients; i++) await delay(100);
  await monitor.flush();
}

/**
 * How busy the server's core is with nothing of this run on it, %, over one second: the work of
 * other processes that every row of the next target will share its core with.
 */
async function idleCoreBusyPct(cpuList: string | undefined): Promise<number | undefined> {
  if (cpuList === undefined) return undefined;
  const before = cpuTimes(cpuList).busy;
  await delay(1000);
  return Math.round((cpuTimes(cpuList).busy - before) * 1000) / 10;
}

/** Reads `connected_clients` once. */
async function connectedClients(monitor: ServerMonitor): Promise<number> {
  return Number((await monitor.info('clients')).get('connected_clients') ?? 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
