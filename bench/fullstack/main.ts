/**
 * `npm run bench:fullstack`: the same Hono app under wrk on Node (one process and a 2-worker
 * cluster), Bun, Deno and workerd, against every contender that runs there, with the server's
 * RSS and the store's connections sampled every second. Progress on stderr; results as JSON
 * under bench/fullstack/results/; full runs regenerate bench/FULLSTACK.md and its charts.
 *
 *   npm run bench:fullstack                          full run (about 50 min on 2 cores)
 *   npm run bench:fullstack -- --quick               smoke run: every row for seconds (~8 min)
 *   npm run bench:fullstack -- --runtime node,bun    only these targets (writes results/partial.json)
 *   npm run bench:fullstack -- --contender cachette,iovalkey,cachette-page   (pages: none-page, cachette-page, hono-cache-page)
 *   npm run bench:fullstack -- --report-only         rebuild FULLSTACK.md from results/full.json
 *
 * Knobs: FULLSTACK_MEASURE_S, FULLSTACK_SOAK_S, FULLSTACK_WARMUP_S, FULLSTACK_SETTLE_S,
 * FULLSTACK_CONNECTIONS, FULLSTACK_THREADS, FULLSTACK_NO_PIN=1.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEnvironment } from '../support/environment.ts';
import { ServerMonitor } from '../support/server.ts';
import { readFullstackConfig } from './config.ts';
import { TARGETS } from './plan.ts';
import { writeFullstackReport } from './report/page.ts';
import type { FullstackResults, TargetResult } from './results.ts';
import { runtimeVersions } from './results.ts';
import { runPageRow, runWorkRow, type RowResult, type TargetContext } from './run-row.ts';
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
    const results = JSON.parse(readFileSync(join(resultsDir, 'full.json'), 'utf8')) as FullstackResults;
    writeFullstackReport(results);
    log('bench/FULLSTACK.md and its charts rebuilt from bench/fullstack/results/full.json');
    return;
  }
  const cfg = readFullstackConfig(argv);
  const loadAtStart = loadavg()[0]!;
  const targets = TARGETS.filter((t) => cfg.targets.includes(t.id));
  const selected = <T extends { contender?: string; page?: string }>(rows: readonly T[]) => rows.filter((r) => !cfg.only || cfg.only.has(r.contender ?? `${r.page}-page`));
  log(
    `${cfg.quick ? 'quick' : 'full'} run: ${targets.map((t) => t.id).join(', ')}; ${cfg.connections} connections, warm-up ${cfg.warmupS} s, measured ${cfg.measureS} s, /work load ${cfg.soakS} s; server on CPU ${cfg.serverCpus ?? 'any'}, wrk + redis-server + bridge on CPU ${cfg.loadCpus ?? 'any'}`,
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
    if (targets.some((t) => t.server === 'workerd')) {
      log('bundling the Worker with wrangler');
      bundle = bundleWorker();
    }
    for (const target of targets) {
      log(`== ${target.label}`);
      const bridge = target.store === 'bridge' ? await startBridgeService(redis.url, cfg.loadCpus) : undefined;
      try {
        const ctx: TargetContext = { cfg, target, monitor, redis, bridge, bundle, denoDir, log };
        const result: TargetResult = { id: target.id, label: target.label, notes: target.notes, work: [], pages: [] };
        for (const row of selected(target.work)) {
          log(`/work ${row.label}`);
          result.work.push(report(await runWorkRow(ctx, row)));
        }
        for (const row of selected(target.pages)) {
          log(`/page ${row.label}`);
          result.pages.push(report(await runPageRow(ctx, row)));
        }
        out.push(result);
      } finally {
        await bridge?.stop();
      }
    }
    const results: FullstackResults = {
      date: new Date().toISOString(),
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

/** Logs a row's headline as it finishes. */
function report(row: RowResult): RowResult {
  if (row.status !== 'ok') log(`  ${row.status}: ${row.reason}`);
  else
    log(
      `  ${Math.round(row.measure!.reqPerSec).toLocaleString('en-US')} req/s, p99 ${row.measure!.latencyP99Ms.toFixed(1)} ms, server CPU ${row.cpuMsPerRequest?.toFixed(2)} ms/req, errors ${row.errors!.non2xx}/${row.errors!.socket}/${row.errors!.exceptions}`,
    );
  for (const line of row.exceptionLines ?? []) log(`  exception: ${line}`);
  return row;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
