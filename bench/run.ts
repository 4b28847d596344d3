/**
 * `npm run bench`: every section against one redis-server, progress on stderr, raw results as
 * JSON under bench/results/, and (full runs only) bench/README.md with its SVG charts
 * regenerated from those results.
 *
 * The sources and the bench are compiled first (bench/.build), and every contender runs its
 * phases in a process of its own on that built code, pinned to one core while the
 * redis-server is pinned to the other: the client's CPU then shows in its own figures.
 *
 *   npm run bench                    full run (~15 min on 2 cores)
 *   npm run bench -- --quick         smoke run (a few minutes), writes results/quick.json only
 *   npm run bench -- --report-only   rebuild README.md and charts from results/full.json
 *   npm run bench -- --allow-dirty   a full run on a tree with uncommitted changes (refused
 *                                    otherwise: the page would name a commit it did not measure)
 *   npm run bench -- --valkey        the seven phases for cachette, node-redis and iovalkey only,
 *                                    interleaved rounds (options in bench/phases/compare.ts)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compressorMicro } from './compression/micro.ts';
import { mainContenders } from './contenders/registry.ts';
import { compressionContenders, serializerContenders } from './contenders/variants.ts';
import type { EngineCostRow } from './engine-cost.ts';
import { runDelaySection } from './network/delay-section.ts';
import { comparisonTables, readCompareArgs, runComparison } from './phases/compare.ts';
import { runPhasesInChild, type ChildJob, type ChildResult } from './phases/in-child.ts';
import type { ContenderResult, PhaseRunOptions } from './phases/run-phases.ts';
import { writeReadme } from './report/readme.ts';
import type { BenchResults } from './report/results.ts';
import { buildBench } from './support/build.ts';
import { runJsonChild } from './support/child-process.ts';
import { readConfig } from './support/config.ts';
import { commitForPage, describeEnvironment, gitCommit } from './support/environment.ts';
import { isSmallValue, smallValue } from './support/payloads.ts';
import { openServer } from './support/server.ts';

const here = dirname(fileURLToPath(import.meta.url));
const started = performance.now();
const log = (line: string) => {
  const s = Math.round((performance.now() - started) / 1000);
  console.error(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}`);
};

// With two cores or more, the server gets core 0 and every measured client core 1.
const pinned = cpus().length >= 2;
const SERVER_CPU = pinned ? 0 : undefined;
const CLIENT_CPU = pinned ? 1 : undefined;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const resultsDir = join(here, 'results');
  if (args.includes('--report-only')) {
    const results = JSON.parse(readFileSync(join(resultsDir, 'full.json'), 'utf8')) as BenchResults;
    writeReadme(here, results, 'results/full.json');
    log('README.md and charts rebuilt from results/full.json');
    return;
  }
  const cfg = readConfig(args);
  // A full run rewrites README.md: checked before anything is built or started.
  const commit = cfg.quick || args.includes('--valkey') ? gitCommit() : commitForPage('npm run bench', args);
  log('compiling the sources and the bench (bench/.build)');
  buildBench();
  if (args.includes('--valkey')) {
    await compareValkey(args, cfg, resultsDir);
    return;
  }
  const loadAtStart = loadavg()[0]!;
  const server = await openServer(SERVER_CPU);
  log(`redis-server ${server.version} at ${server.url}; ${cfg.quick ? 'quick' : 'full'} run: ${cfg.nOps} calls × ${cfg.kRuns} runs per phase, ${cfg.concurrency} in flight`);
  try {
    const base = { url: server.url, monitor: server.monitor, n: cfg.nOps, kRuns: cfg.kRuns, batch: cfg.batch };
    const small: Pick<PhaseRunOptions, 'value' | 'check'> = { value: smallValue, check: isSmallValue };

    const inChild = async (mode: string, spec: { id: string; label: string }, job: Omit<ChildJob, 'contender' | 'url' | 'n' | 'kRuns' | 'batch'> & { n?: number }): Promise<ChildResult> => {
      log(`${mode}: ${spec.label}`);
      const result = await runPhasesInChild({ contender: spec.id, url: server.url, n: cfg.nOps, kRuns: cfg.kRuns, batch: cfg.batch, ...job }, CLIENT_CPU, log);
      log(
        `${mode}: ${spec.id} ${result.phases.map((p) => `${p.phase} ${p.callsPerSec.toLocaleString('en-US')}${p.wrong ? ` (${p.wrong} FAILED CHECKS)` : ''}`).join(', ')}; ${result.cpuUsPerCall} µs CPU/call`,
      );
      return result;
    };

    log("section 1/5: the engine's own cost, no I/O");
    const engineCost = await runJsonChild<EngineCostRow[]>(join(here, '.build', 'bench', 'engine-cost.js'), ['--json', ...(cfg.quick ? ['--quick'] : [])], CLIENT_CPU, log);

    log('section 2/5: seven phases, every contender, serial then concurrent');
    const main = { serial: [] as ContenderResult[], concurrent: [] as ContenderResult[] };
    for (const [mode, concurrency] of [
      ['serial', 1],
      ['concurrent', cfg.concurrency],
    ] as const) {
      for (const spec of mainContenders) main[mode].push(await inChild(mode, spec, { concurrency, payload: 'small' }));
    }

    log('section 3/5: serializers');
    const serializers: ContenderResult[] = [];
    for (const spec of serializerContenders) serializers.push(await inChild('serializer', spec, { concurrency: cfg.concurrency, payload: 'small' }));

    log('section 4/5: compressors');
    const micro = compressorMicro(cfg.quick ? 100 : 400);
    for (const m of micro.rows) log(`compressor ${m.name}: ${m.unavailable ?? `ratio ${m.ratio}, ${m.compressMBs} MB/s in, ${m.decompressMBs} MB/s out`}`);
    const macro: ChildResult[] = [];
    for (const spec of compressionContenders) macro.push(await inChild('compression', spec, { n: cfg.macroOps, concurrency: cfg.concurrency, payload: 'rows', memoryUsage: true }));

    log('section 5/5: network delay proxy');
    const delay = await runDelaySection({ ...base, ...small, kRuns: cfg.kRunsDelay }, server.url, cfg.concurrency, cfg.quick ? 200 : 2000, log);

    const results: BenchResults = {
      date: new Date().toISOString(),
      commit,
      durationS: Math.round((performance.now() - started) / 1000),
      config: cfg,
      environment: describeEnvironment(server.version),
      // Other work on the machine moves every number; the report prints these.
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      pinning: pinned ? { serverCpu: SERVER_CPU!, clientCpu: CLIENT_CPU! } : undefined,
      engineCost,
      main,
      serializers,
      compression: { inputBytes: micro.inputBytes, micro: micro.rows, macro },
      delay,
    };
    mkdirSync(resultsDir, { recursive: true });
    const file = cfg.quick ? 'quick.json' : 'full.json';
    writeFileSync(join(resultsDir, file), `${JSON.stringify(results, null, 1)}\n`);
    log(`results written to bench/results/${file}`);
    if (!cfg.quick) {
      writeReadme(here, results, `results/${file}`);
      log('bench/README.md and charts regenerated');
    }
    const failed = [...main.serial, ...main.concurrent, ...serializers, ...macro].flatMap((r) => r.phases.filter((p) => p.wrong > 0).map((p) => `${r.id}/${p.phase}`));
    if (failed.length) log(`failed checks (flagged in the report): ${failed.join(', ')}`);
  } finally {
    await server.stop();
  }
}

/** `--valkey`: a few contenders' seven phases in interleaved rounds, printed and written to results/valkey-<runtime>.json. */
async function compareValkey(args: readonly string[], cfg: ReturnType<typeof readConfig>, resultsDir: string): Promise<void> {
  const picked = readCompareArgs(args);
  const server = await openServer(SERVER_CPU);
  const load = loadavg();
  log(
    `redis-server ${server.version}; ${picked.contenders.join(', ')} on ${picked.runtime}, ${picked.rounds} rounds of ${cfg.nOps} calls × ${cfg.kRuns} runs per phase; load ${load.map((l) => l.toFixed(2)).join(' ')}`,
  );
  try {
    const comparison = await runComparison({ ...picked, url: server.url, n: cfg.nOps, kRuns: cfg.kRuns, batch: cfg.batch, concurrency: cfg.concurrency, cpu: CLIENT_CPU }, log);
    mkdirSync(resultsDir, { recursive: true });
    const file = `valkey-${picked.runtime}.json`;
    writeFileSync(join(resultsDir, file), `${JSON.stringify({ date: new Date().toISOString(), loadAverage: { start: load, end: loadavg() }, config: cfg, ...comparison }, null, 1)}\n`);
    console.log(
      `\n${comparisonTables(comparison)}\nload average ${load.map((l) => l.toFixed(2)).join(' ')} → ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    log(`results written to bench/results/${file}`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
