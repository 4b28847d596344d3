/**
 * `npm run bench:embedded`: issue 14's workloads (classic mix, value sizes, hit ratio, 1/2/4
 * processes on one file) against the SQLite store and its peers, issue 19's ratios (the store
 * over raw better-sqlite3, interleaved; 1/2/4 processes on a write-heavy mix), raw results as
 * JSON under bench/results/, and (full runs only) bench/EMBEDDED.md with its chart.
 *
 *   npm run bench:embedded                    full run (the issue's counts)
 *   npm run bench:embedded -- --quick         smoke run, writes results/embedded-quick.json only
 *   npm run bench:embedded -- --report-only   rebuild EMBEDDED.md and the chart from results/embedded.json
 *   npm run bench:embedded -- --allow-dirty   a full run on a tree with uncommitted changes (refused otherwise)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitForPage, describeEnvironment, gitCommit, installedVersion } from '../support/environment.ts';
import { openServer } from '../support/server.ts';
import { embeddedConfig } from './config.ts';
import { startPostgres } from '../support/postgres.ts';
import { countFor, EMBEDDED_CONTENDERS, type EmbeddedServers, type EmbeddedSpec } from './contenders.ts';
import { runProcesses } from './processes.ts';
import { rotation, SIDE_BY_SIDE, summariseSideBySide, summariseWriteHeavy, WRITE_HEAVY, type SideBySideResult, type WriteHeavyResult } from './ratios.ts';
import { PLACEMENTS } from './value-placement.ts';
import { writeEmbeddedReport, type EmbeddedResults, type Row } from './report.ts';
import { classicMix, hitRatios, valueSizes, WRITE_HEAVY_MIX, type MixResult } from './workloads.ts';

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = join(here, '..');
const resultsDir = join(benchDir, 'results');
const started = performance.now();
const log = (line: string) => console.error(`[${Math.round((performance.now() - started) / 1000)} s] ${line}`);
const LIBRARIES = ['better-sqlite3', 'keyv', '@keyv/sqlite', 'sqlite3', 'lmdb', 'lru-cache', 'iovalkey', 'pg', 'cbor-x', 'fflate', 'tsx', 'bun', 'deno'];

/** Bytes of every file under `dir` (database, WAL, LMDB environment, value files). */
function diskBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    total += stat.isDirectory() ? diskBytes(path) : stat.size;
  }
  return total;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--report-only')) {
    writeEmbeddedReport(benchDir, JSON.parse(readFileSync(join(resultsDir, 'embedded.json'), 'utf8')) as EmbeddedResults, 'results/embedded.json');
    log('EMBEDDED.md and its chart rebuilt from results/embedded.json');
    return;
  }
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const cfg = embeddedConfig(args.includes('--quick'));
  // Only a full run of every contender rewrites EMBEDDED.md: checked before anything starts.
  const commit = cfg.quick || only ? gitCommit() : commitForPage('npm run bench:embedded', args);
  const loadAtStart = loadavg()[0]!;
  const work = mkdtempSync(join(tmpdir(), 'cachette-bench-embedded-'));
  const contenders = EMBEDDED_CONTENDERS.filter((c) => !only || only.includes(c.id));
  // Started first: its watchdog removes it should anything after this fail.
  const postgres = contenders.some((c) => c.server === 'postgres') ? await startPostgres() : undefined;
  const server = await openServer();
  const servers: EmbeddedServers = { redisUrl: server.url, postgresUrl: postgres?.url };
  log(`${cfg.quick ? 'quick' : 'full'} run in ${work}; redis-server ${server.version}${postgres ? `; ${postgres.version}` : ''}; contenders: ${contenders.map((c) => c.id).join(', ')}`);

  /** Opens `spec` on a fresh directory, runs `body`, closes it and measures what stayed on disk. */
  const withContender = async <T>(spec: EmbeddedSpec, section: string, body: (kv: Awaited<ReturnType<EmbeddedSpec['open']>>) => Promise<T>): Promise<Row<T>> => {
    const dir = join(work, `${section}-${spec.id}`);
    mkdirSync(dir, { recursive: true });
    if (spec.id === 'valkey') await server.monitor.flush();
    try {
      const kv = await spec.open(dir, servers);
      try {
        const result = await body(kv);
        return { id: spec.id, label: spec.label, result };
      } finally {
        await kv.close();
      }
    } catch (error) {
      log(`${section} ${spec.id} FAILED: ${(error as Error).message}`);
      return { id: spec.id, label: spec.label, error: (error as Error).message };
    } finally {
      const bytes = spec.persistent ? diskBytes(dir) : undefined;
      rmSync(dir, { recursive: true, force: true });
      if (bytes !== undefined) lastDisk.set(`${section}-${spec.id}`, bytes);
    }
  };
  const lastDisk = new Map<string, number>();
  const withDisk = <T>(section: string, row: Row<T>): Row<T> => ({ ...row, diskBytes: lastDisk.get(`${section}-${row.id}`) });

  try {
    log('section 1/7: classic mix');
    const mix: Array<Row<MixResult>> = [];
    for (const spec of contenders) {
      const row = withDisk(
        'mix',
        await withContender(spec, 'mix', (kv) => classicMix(kv, spec.takes, { ops: countFor(spec, cfg.mixOps), warmup: countFor(spec, cfg.mixWarmup), seed: 1, check: true })),
      );
      if (row.result)
        log(
          `mix ${spec.id}: ${row.result.opsPerSec.toLocaleString('en-US')} ops/s, get p50 ${row.result.get.p50} µs, set p50 ${row.result.set.p50} µs, delete p50 ${row.result.delete.p50} µs${row.result.wrong ? `, ${row.result.wrong} WRONG` : ''}`,
        );
      mix.push(row);
    }

    log('section 2/7: the store over raw better-sqlite3, classic mix, interleaved rounds');
    const sideRounds: SideBySideResult['rounds'] = [];
    const sideSpecs = contenders.filter((c) => (SIDE_BY_SIDE as readonly string[]).includes(c.id));
    for (let round = 0; round < (sideSpecs.length > 1 ? cfg.ratioRounds : 0); round++) {
      const results: Record<string, MixResult | undefined> = {};
      for (const spec of rotation(sideSpecs, round)) {
        const row = await withContender(spec, `side${round}`, (kv) => classicMix(kv, spec.takes, { ops: cfg.mixOps, warmup: cfg.mixWarmup, seed: 1 + round, check: true }));
        results[spec.id] = row.result;
      }
      sideRounds.push(results);
      log(
        `round ${round + 1}: ${Object.entries(results)
          .map(([id, m]) => `${id} ${m ? `${m.get.p50}/${m.set.p50}/${m.delete.p50}` : 'failed'}`)
          .join(', ')} (get/set/delete p50 µs)`,
      );
    }
    const sideBySide = summariseSideBySide(sideRounds);
    if (sideBySide.storeOverRaw) {
      const { get, set, delete: remove } = sideBySide.storeOverRaw;
      log(`store ÷ raw p50: get ${get.toFixed(2)}×, set ${set.toFixed(2)}×, delete ${remove.toFixed(2)}×; cache.get − store get ${sideBySide.cacheGetOverStoreUs?.toFixed(2) ?? '—'} µs`);
    }

    log("section 3/7: the classic mix on each runtime's binding");
    const runtimes: EmbeddedResults['runtimes'] = [];
    for (const [runtime, command] of [
      ['node', [process.execPath, '--import', 'tsx']],
      ['bun', [join(benchDir, '../node_modules/.bin/bun')]],
      ['deno', [join(benchDir, '../node_modules/.bin/deno'), 'run', '--allow-all', '--no-check']],
    ] as const) {
      const dir = join(work, `runtime-${runtime}`);
      mkdirSync(dir, { recursive: true });
      const [bin, ...rest] = command;
      const run = spawnSync(bin, [...rest, join(here, 'runtime-mix.ts'), JSON.stringify({ dir, ops: cfg.mixOps, warmup: cfg.mixWarmup })], { encoding: 'utf8', timeout: 10 * 60_000 });
      const last = run.stdout.trim().split('\n').pop() ?? '';
      if (run.status === 0 && last.startsWith('{')) {
        const parsed = JSON.parse(last) as { binding: string; result: MixResult };
        runtimes.push({ runtime, ...parsed });
        log(`runtime ${runtime} (${parsed.binding}): ${parsed.result.opsPerSec.toLocaleString('en-US')} ops/s, get p50 ${parsed.result.get.p50} µs, set p50 ${parsed.result.set.p50} µs`);
      } else {
        log(`runtime ${runtime} FAILED: ${run.stderr.slice(-1000)}`);
        runtimes.push({ runtime, error: run.stderr.slice(-500) || `exit ${run.status}` });
      }
      rmSync(dir, { recursive: true, force: true });
    }

    log('section 4/7: value sizes');
    const sizes: EmbeddedResults['sizes'] = [];
    for (const spec of [...contenders, ...PLACEMENTS.filter((p) => !only || only.includes(p.id))]) {
      for (const size of cfg.sizes) {
        // The placements only matter where files might pay: 64 KB and up.
        if (PLACEMENTS.includes(spec) && size.size < 64 * 1024) continue;
        const section = `size${size.size}`;
        const row = withDisk(section, await withContender(spec, section, (kv) => valueSizes(kv, spec.takes, size.size, countFor(spec, size.sets), size.keys)));
        if (row.result) log(`size ${size.size} ${spec.id}: set p50 ${row.result.set.p50} µs, get p50 ${row.result.get.p50} µs${row.result.wrong ? `, ${row.result.wrong} WRONG` : ''}`);
        sizes.push({ ...row, size: size.size });
      }
    }

    log('section 5/7: hit ratio');
    const hits: EmbeddedResults['hitRatio'] = [];
    for (const spec of contenders) {
      const row = withDisk('hits', await withContender(spec, 'hits', (kv) => hitRatios(kv, spec.takes, countFor(spec, cfg.hitKeys), countFor(spec, cfg.hitGets), cfg.hitTargets)));
      if (row.result) log(`hit ratio ${spec.id}: ${row.result.map((r) => `${r.target * 100} % → p50 ${r.get.p50} µs, ${r.opsPerSec.toLocaleString('en-US')} ops/s`).join('; ')}`);
      hits.push(row);
    }

    log('section 6/7: 1, 2 and 4 processes on one file');
    const processes: EmbeddedResults['processes'] = [];
    for (const spec of contenders.filter((c) => c.multiProcess)) {
      for (const count of cfg.processCounts) {
        const dir = join(work, `processes-${spec.id}-${count}`);
        try {
          const result = await runProcesses(spec.id, dir, count, countFor(spec, cfg.processOps), countFor(spec, cfg.mixWarmup));
          log(`processes ${spec.id} × ${count}: ${result.opsPerSec.toLocaleString('en-US')} ops/s together`);
          processes.push({ id: spec.id, label: spec.label, result });
        } catch (error) {
          log(`processes ${spec.id} × ${count} FAILED: ${(error as Error).message}`);
          processes.push({ id: spec.id, label: spec.label, error: (error as Error).message });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }

    log('section 7/7: 1, 2 and 4 processes on one file, write-heavy mix (50 % sets), interleaved rounds');
    const heavyRounds: WriteHeavyResult['rounds'] = [];
    const heavyIds = WRITE_HEAVY.filter((id) => contenders.some((c) => c.id === id));
    for (let round = 0; round < (heavyIds.length ? cfg.writeHeavyRounds : 0); round++) {
      const results: WriteHeavyResult['rounds'][number] = {};
      for (const count of cfg.processCounts) {
        for (const id of rotation(heavyIds, round + count)) {
          const dir = join(work, `heavy-${round}-${id}-${count}`);
          try {
            const result = await runProcesses(id, dir, count, cfg.processOps, cfg.mixWarmup, WRITE_HEAVY_MIX);
            (results[id] ??= {})[count] = result;
            log(`write-heavy round ${round + 1} ${id} × ${count}: ${result.opsPerSec.toLocaleString('en-US')} ops/s together`);
          } catch (error) {
            log(`write-heavy ${id} × ${count} FAILED: ${(error as Error).message}`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      }
      heavyRounds.push(results);
    }
    const writeHeavy = summariseWriteHeavy(heavyRounds, cfg.processCounts);
    for (const id of heavyIds)
      log(
        `write-heavy ${id}: ${cfg.processCounts.map((n) => `${n}: ${writeHeavy.opsPerSec[id]?.[n]?.toLocaleString('en-US') ?? '—'} ops/s (${writeHeavy.scaling[id]?.[n]?.toFixed(2) ?? '—'}×)`).join(', ')}`,
      );

    const environment = describeEnvironment(server.version);
    const results: EmbeddedResults = {
      date: new Date().toISOString(),
      commit,
      durationS: Math.round((performance.now() - started) / 1000),
      config: cfg,
      environment: { ...environment, ...(postgres ? { postgresServer: postgres.version } : {}), libraries: Object.fromEntries(LIBRARIES.map((l) => [l, installedVersion(l)])) },
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      mix,
      runtimes,
      sizes,
      hitRatio: hits,
      processes,
      sideBySide,
      writeHeavy,
    };
    mkdirSync(resultsDir, { recursive: true });
    const file = cfg.quick ? 'embedded-quick.json' : 'embedded.json';
    writeFileSync(join(resultsDir, file), `${JSON.stringify(results, null, 1)}\n`);
    log(`results written to bench/results/${file}`);
    if (!cfg.quick && !only) {
      writeEmbeddedReport(benchDir, results, `results/${file}`);
      log('bench/EMBEDDED.md and its chart regenerated');
    }
  } finally {
    await server.stop();
    await postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
