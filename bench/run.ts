/**
 * `npm run bench`: every section in one process against one redis-server, progress on stderr,
 * raw results as JSON under bench/results/, and (full runs only) bench/README.md with its
 * SVG charts regenerated from those results.
 *
 *   npm run bench                    full run (~10–15 min on 2 cores)
 *   npm run bench -- --quick         smoke run (< 2 min), writes results/quick.json only
 *   npm run bench -- --report-only   rebuild README.md and charts from results/full.json
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Packr } from 'msgpackr';
import type { Serializer } from '../src/index.ts';
import { compressionMacro } from './compression/macro.ts';
import { compressorMicro } from './compression/micro.ts';
import { cachetteSpec } from './contenders/cachette.ts';
import { mainContenders } from './contenders/registry.ts';
import { runLayerOverhead } from './layer-overhead.ts';
import { runDelaySection } from './network/delay-section.ts';
import { runPhases, type ContenderResult, type PhaseRunOptions } from './phases/run-phases.ts';
import { writeReadme } from './report/readme.ts';
import type { BenchResults } from './report/results.ts';
import { readConfig } from './support/config.ts';
import { describeEnvironment } from './support/environment.ts';
import { isSmallValue, smallValue } from './support/payloads.ts';
import { openServer } from './support/server.ts';

const here = dirname(fileURLToPath(import.meta.url));
const started = performance.now();
const log = (line: string) => {
  const s = Math.round((performance.now() - started) / 1000);
  console.error(`[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}`);
};

// Plain MessagePack maps (no msgpackr records), so the bytes are what any MessagePack reader expects.
const packr = new Packr({ useRecords: false });
const msgpackSerializer: Serializer = { id: 5, name: 'msgpack', encode: (v) => packr.pack(v), decode: (b) => packr.unpack(b) };

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
  const loadAtStart = loadavg()[0]!;
  const server = await openServer();
  log(`redis-server ${server.version} at ${server.url}; ${cfg.quick ? 'quick' : 'full'} run: ${cfg.nOps} calls × ${cfg.kRuns} runs per phase, ${cfg.concurrency} in flight`);
  try {
    const base = { url: server.url, monitor: server.monitor, n: cfg.nOps, kRuns: cfg.kRuns, batch: cfg.batch };
    const small: Pick<PhaseRunOptions, 'value' | 'check'> = { value: smallValue, check: isSmallValue };
    const phaseProgress = (id: string, mode: string) => (p: { phase: string; callsPerSec: number; wrong: number }) =>
      log(`${mode} ${id} ${p.phase}: ${p.callsPerSec.toLocaleString('en-US')} calls/s${p.wrong ? ` (${p.wrong} FAILED CHECKS)` : ''}`);

    log('section 1/5: layer overhead');
    const layer = await runLayerOverhead(server.url, cfg, log);

    log('section 2/5: seven phases, every contender, serial then concurrent');
    const main = { serial: [] as ContenderResult[], concurrent: [] as ContenderResult[] };
    for (const [mode, concurrency] of [['serial', 1], ['concurrent', cfg.concurrency]] as const) {
      for (const [i, spec] of mainContenders.entries()) {
        log(`${mode} ${i + 1}/${mainContenders.length}: ${spec.label}`);
        main[mode].push(await runPhases(spec, { ...base, ...small, concurrency, onPhase: phaseProgress(spec.id, mode) }));
      }
    }

    log('section 3/5: serializers');
    const serializers: ContenderResult[] = [];
    for (const [id, label, serializer] of [['cbor', 'cachette + CBOR (cbor-x)', 'cbor'], ['json', 'cachette + JSON', 'json'], ['msgpack', 'cachette + MessagePack (msgpackr)', msgpackSerializer]] as const) {
      const spec = cachetteSpec({ id: `cachette-${id}`, label, store: 'valkey', serializer });
      serializers.push(await runPhases(spec, { ...base, ...small, concurrency: cfg.concurrency, onPhase: phaseProgress(spec.id, 'serializer') }));
    }

    log('section 4/5: compressors');
    const micro = compressorMicro(cfg.quick ? 100 : 400);
    for (const m of micro.rows) log(`compressor ${m.name}: ${m.unavailable ?? `ratio ${m.ratio}, ${m.compressMBs} MB/s in, ${m.decompressMBs} MB/s out`}`);
    const macro = await compressionMacro({ ...base, n: cfg.macroOps, concurrency: cfg.concurrency, onPhase: phaseProgress('compression', 'macro') });

    log('section 5/5: network delay proxy');
    const delay = await runDelaySection({ ...base, ...small, kRuns: cfg.kRunsDelay }, server.url, cfg.concurrency, cfg.quick ? 200 : 2000, log);

    const results: BenchResults = {
      date: new Date().toISOString(),
      durationS: Math.round((performance.now() - started) / 1000),
      config: cfg,
      environment: describeEnvironment(server.version),
      // Other work on the machine moves every number; the report prints these.
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      layer,
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

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
