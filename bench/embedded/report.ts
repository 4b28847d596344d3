/** bench/EMBEDDED.md and its charts, from one run of `npm run bench:embedded`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dirtyTreeWarning, repositoryLink, runStamp } from '../report/run-stamp.ts';
import { barChartSvg } from '../report/svg.ts';
import type { Environment } from '../support/environment.ts';
import type { EmbeddedConfig } from './config.ts';
import { EMBEDDED_CONTENDERS, SLOW_SHARE } from './contenders.ts';
import type { LatencySummary } from './latency.ts';
import type { ProcessesResult } from './processes.ts';
import type { SideBySideResult, WriteHeavyResult } from './ratios.ts';
import type { HitRatioResult, MixResult, SizeResult } from './workloads.ts';

/** One contender's outcome in one section: a result, or the error that stopped it. */
export interface Row<T> {
  id: string;
  label: string;
  result?: T;
  error?: string;
  /** Bytes left on disk after the workload and close (persistent contenders only). */
  diskBytes?: number;
  /** The value size, in the value-size section. */
  size?: number;
}

/** Everything one run measured. */
export interface EmbeddedResults {
  date: string;
  /** The commit measured (`git describe --always --dirty`): the engine these figures belong to. */
  commit?: string;
  durationS: number;
  config: EmbeddedConfig;
  /** `postgresServer`: the throwaway cluster's `postgres --version`, in runs with the postgres row. */
  environment: Environment & { postgresServer?: string };
  loadAverage: { start: number; end: number };
  mix: Array<Row<MixResult>>;
  runtimes: Array<{ runtime: string; binding?: string; result?: MixResult; error?: string }>;
  sizes: Array<Row<SizeResult>>;
  hitRatio: Array<Row<HitRatioResult[]>>;
  processes: Array<Row<ProcessesResult>>;
  /** Issue 19: the store over raw better-sqlite3 (absent from runs before it). */
  sideBySide?: SideBySideResult;
  /** Issue 19: processes on one file, write-heavy mix (absent from runs before it). */
  writeHeavy?: WriteHeavyResult;
}

/** A contender's label, with † when it ran the shortened counts. */
const mark = (id: string, label: string) => (EMBEDDED_CONTENDERS.find((c) => c.id === id)?.slow ? `${label} †` : label);

const us = (n: number | undefined) => (n === undefined ? '—' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US'));
const int = (n: number | undefined) => (n === undefined ? '—' : Math.round(n).toLocaleString('en-US'));
const size = (bytes: number | undefined) =>
  bytes === undefined ? '—' : bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${bytes} B`;
const latency = (l: LatencySummary | undefined) => (l ? `${us(l.p50)} / ${us(l.p90)} / ${us(l.p99)} / ${us(l.max)}` : '—');
const valueSize = (bytes: number) => (bytes >= 1024 ** 2 ? `${bytes / 1024 ** 2} MB` : bytes >= 1024 ? `${bytes / 1024} KB` : `${bytes} B`);
const failed = (row: Row<unknown>) => `| ${row.label} | failed: ${(row.error ?? '').replace(/\|/g, '\\|').slice(0, 120)} |`;
const wrong = (n: number | undefined) => (n ? ` ⚠ ${n} wrong` : '');

/** A ratio of two rates as "3.4×", or "—" when either is missing. */
const times = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(1)}×` : '—');

/** The issue's targets, each with what this run measured and whether it met it. */
function targets(r: EmbeddedResults): string[] {
  const mix = (id: string) => r.mix.find((m) => m.id === id)?.result;
  const sqlite = mix('sqlite');
  const cache = mix('sqlite-cache');
  const keyv = mix('keyv-sqlite');
  // Every row of every section where both ran: the slowest of sqlite's ratios over Keyv.
  const ratios: Array<[string, number]> = [];
  if (sqlite && keyv) ratios.push(['classic mix ops/s', sqlite.opsPerSec / keyv.opsPerSec]);
  for (const s of r.sizes.filter((x) => x.id === 'sqlite' && x.result)) {
    const k = r.sizes.find((x) => x.id === 'keyv-sqlite' && x.size === s.size)?.result;
    if (k) ratios.push([`${valueSize(s.size!)} set/s`, s.result!.setPerSec / k.setPerSec], [`${valueSize(s.size!)} get/s`, s.result!.getPerSec / k.getPerSec]);
  }
  const hs = r.hitRatio.find((x) => x.id === 'sqlite')?.result;
  const hk = r.hitRatio.find((x) => x.id === 'keyv-sqlite')?.result;
  for (const h of hs ?? []) {
    const k = hk?.find((x) => x.target === h.target);
    if (k) ratios.push([`${h.target * 100} % hits get/s`, h.opsPerSec / k.opsPerSec]);
  }
  for (const p of r.processes.filter((x) => x.id === 'sqlite' && x.result)) {
    const k = r.processes.find((x) => x.id === 'keyv-sqlite' && x.result?.processes === p.result!.processes)?.result;
    if (k) ratios.push([`${p.result!.processes} processes ops/s`, p.result!.opsPerSec / k.opsPerSec]);
  }
  const worst = ratios.reduce<[string, number] | undefined>((w, x) => (!w || x[1] < w[1] ? x : w), undefined);
  const procs = (n: number) => r.processes.find((x) => x.id === 'sqlite' && x.result?.processes === n)?.result?.opsPerSec;
  const check = (ok: boolean | undefined) => (ok === undefined ? '—' : ok ? 'met' : '**missed**');
  return [
    '| target | measured | |',
    '|---|---:|---|',
    `| store get p50 ≤ 2.6 µs (classic mix) | ${us(sqlite?.get.p50)} µs | ${check(sqlite && sqlite.get.p50 <= 2.6)} |`,
    `| store set p50 ≤ 19 µs | ${us(sqlite?.set.p50)} µs | ${check(sqlite && sqlite.set.p50 <= 19)} |`,
    `| store delete p50 ≤ 18 µs | ${us(sqlite?.delete.p50)} µs | ${check(sqlite && sqlite.delete.p50 <= 18)} |`,
    `| \`cache.get\` p50 ≤ 3.5 µs | ${us(cache?.get.p50)} µs | ${check(cache && cache.get.p50 <= 3.5)} |`,
    `| ≥ 3× Keyv + @keyv/sqlite on every row (${ratios.length} rows) | lowest ${worst ? `${worst[1].toFixed(1)}× (${worst[0]})` : '—'} | ${check(worst && worst[1] >= 3)} |`,
    `| 2 processes ≥ 1.5× one (ops/s together) | ${times(procs(2), procs(1))} | ${check(procs(2) && procs(1) ? procs(2)! / procs(1)! >= 1.5 : undefined)} |`,
  ];
}

/** Issue 19's targets: the store over raw better-sqlite3, `cache.get` over the store, processes on a write-heavy mix. */
function rawTargets(r: EmbeddedResults): string[] {
  const ratios = r.sideBySide?.storeOverRaw;
  const scaling = r.writeHeavy?.scaling.sqlite?.[2];
  const check = (ok: boolean | undefined) => (ok === undefined ? '—' : ok ? 'met' : '**missed**');
  const x = (n: number | undefined) => (n === undefined ? '—' : `${n.toFixed(2)}×`);
  return [
    '| target (issue 19) | measured | |',
    '|---|---:|---|',
    `| store get p50 ≤ 1.2× raw | ${x(ratios?.get)} | ${check(ratios && ratios.get <= 1.2)} |`,
    `| store set p50 ≤ 1.5× raw | ${x(ratios?.set)} | ${check(ratios && ratios.set <= 1.5)} |`,
    `| store delete p50 ≤ 1.5× raw | ${x(ratios?.delete)} | ${check(ratios && ratios.delete <= 1.5)} |`,
    `| \`cache.get\` p50 ≤ store get + 1 µs | ${r.sideBySide?.cacheGetOverStoreUs === undefined ? '—' : `+${us(r.sideBySide.cacheGetOverStoreUs)} µs`} | ${check(r.sideBySide?.cacheGetOverStoreUs === undefined ? undefined : r.sideBySide.cacheGetOverStoreUs <= 1)} |`,
    `| 2 processes ≥ 1.5× one (write-heavy mix) | ${x(scaling)} | ${check(scaling === undefined ? undefined : scaling >= 1.5)} |`,
  ];
}

/** Each round of the interleaved classic mix, then the medians. */
function sideBySideTable(r: EmbeddedResults): string[] {
  const rounds = r.sideBySide?.rounds ?? [];
  const ids = ['raw-sqlite', 'sqlite', 'sqlite-cache'];
  const cell = (m: MixResult | undefined) => (m ? `${us(m.get.p50)} / ${us(m.set.p50)} / ${us(m.delete.p50)}` : '—');
  return [
    `| round | ${ids.map((id) => `${EMBEDDED_CONTENDERS.find((c) => c.id === id)?.label ?? id}: get / set / delete p50 µs`).join(' | ')} |`,
    `|---:|${ids.map(() => '---:').join('|')}|`,
    ...rounds.map((round, i) => `| ${i + 1} | ${ids.map((id) => cell(round[id])).join(' | ')} |`),
  ];
}

/** Ops/s of the write-heavy mix at each process count, and the scaling over one process. */
function writeHeavyTable(r: EmbeddedResults): string[] {
  const heavy = r.writeHeavy;
  if (!heavy) return ['Not measured in this run.'];
  const counts = r.config.processCounts;
  return [
    `| contender | ${counts.map((n) => `${n} process${n > 1 ? 'es' : ''} ops/s`).join(' | ')} | ${counts
      .slice(1)
      .map((n) => `${n} vs 1`)
      .join(' | ')} |`,
    `|---|${counts.map(() => '---:').join('|')}|${counts
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...Object.keys(heavy.opsPerSec).map(
      (id) =>
        `| ${EMBEDDED_CONTENDERS.find((c) => c.id === id)?.label ?? id} | ${counts.map((n) => int(heavy.opsPerSec[id]?.[n])).join(' | ')} | ${counts
          .slice(1)
          .map((n) => (heavy.scaling[id]?.[n] === undefined ? '—' : `${heavy.scaling[id]![n]!.toFixed(2)}×`))
          .join(' | ')} |`,
    ),
  ];
}

function mixTable(r: EmbeddedResults): string[] {
  return [
    '| contender | ops/s | get p50 / p90 / p99 / max µs | set p50 / p90 / p99 / max µs | delete p50 / p90 / p99 / max µs | hits | on disk |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.mix.map((m) =>
      m.result
        ? `| ${mark(m.id, m.label)} | ${int(m.result.opsPerSec)}${wrong(m.result.wrong)} | ${latency(m.result.get)} | ${latency(m.result.set)} | ${latency(m.result.delete)} | ${m.result.hitRatio} | ${size(m.diskBytes)} |`
        : failed(m),
    ),
  ];
}

function runtimeTable(r: EmbeddedResults): string[] {
  return [
    '| runtime | binding | ops/s | get p50 / p99 µs | set p50 / p99 µs | delete p50 / p99 µs |',
    '|---|---|---:|---:|---:|---:|',
    ...r.runtimes.map((x) =>
      x.result
        ? `| ${x.runtime} | ${x.binding} | ${int(x.result.opsPerSec)}${wrong(x.result.wrong)} | ${us(x.result.get.p50)} / ${us(x.result.get.p99)} | ${us(x.result.set.p50)} / ${us(x.result.set.p99)} | ${us(x.result.delete.p50)} / ${us(x.result.delete.p99)} |`
        : `| ${x.runtime} | failed: ${(x.error ?? '').slice(0, 100)} |`,
    ),
  ];
}

function sizeTables(r: EmbeddedResults): string[] {
  return r.config.sizes.flatMap((c) => [
    `### ${valueSize(c.size)}: ${int(c.sets)} sets, then ${int(c.sets)} gets, over ${int(c.keys)} keys`,
    '',
    '| contender | set p50 / p99 µs | sets/s | get p50 / p99 µs | gets/s | on disk |',
    '|---|---:|---:|---:|---:|---:|',
    ...r.sizes
      .filter((s) => s.size === c.size)
      .map((s) =>
        s.result
          ? `| ${mark(s.id, s.label)} | ${us(s.result.set.p50)} / ${us(s.result.set.p99)} | ${int(s.result.setPerSec)} | ${us(s.result.get.p50)} / ${us(s.result.get.p99)} | ${int(s.result.getPerSec)}${wrong(s.result.wrong)} | ${size(s.diskBytes)} |`
          : failed(s),
      ),
    '',
  ]);
}

/** Whether value files beside the database paid, per size, from the prototype's rows. */
function filesVerdict(r: EmbeddedResults): string[] {
  return r.config.sizes
    .filter((c) => c.size >= 64 * 1024)
    .map((c) => {
      const inDb = r.sizes.find((s) => s.id === 'sqlite-inline' && s.size === c.size)?.result;
      const files = r.sizes.find((s) => s.id === 'sqlite-files' && s.size === c.size)?.result;
      if (!inDb || !files) return `- ${valueSize(c.size)}: not measured.`;
      return `- ${valueSize(c.size)}: in files, sets run at ${times(files.setPerSec, inDb.setPerSec)} and gets at ${times(files.getPerSec, inDb.getPerSec)} the rate of values inside the database.`;
    });
}

function hitTable(r: EmbeddedResults): string[] {
  const targetsRun = r.config.hitTargets;
  return [
    `| contender | ${targetsRun.map((t) => `${t * 100} % hits: get p50 / p99 µs | gets/s`).join(' | ')} | on disk |`,
    `|---|${targetsRun.map(() => '---:|---:').join('|')}|---:|`,
    ...r.hitRatio.map((h) =>
      h.result ? `| ${mark(h.id, h.label)} | ${h.result.map((x) => `${us(x.get.p50)} / ${us(x.get.p99)} | ${int(x.opsPerSec)}${wrong(x.wrong)}`).join(' | ')} | ${size(h.diskBytes)} |` : failed(h),
    ),
  ];
}

function processTable(r: EmbeddedResults): string[] {
  const ids = [...new Set(r.processes.map((p) => p.id))];
  const counts = r.config.processCounts;
  return [
    `| contender | ${counts.map((n) => `${n} process${n > 1 ? 'es' : ''} ops/s`).join(' | ')} | ${counts
      .slice(1)
      .map((n) => `${n} vs 1`)
      .join(' | ')} | get p50 µs per process (${counts.join(' / ')}) |`,
    `|---|${counts.map(() => '---:').join('|')}|${counts
      .slice(1)
      .map(() => '---:')
      .join('|')}|---:|`,
    ...ids.map((id) => {
      const rows = counts.map((n) => r.processes.find((p) => p.id === id && p.result?.processes === n)?.result);
      const label = r.processes.find((p) => p.id === id)!.label;
      const p50 = rows.map((x) => (x ? us(median(x.perProcess.map((p) => p.get.p50))) : '—')).join(' / ');
      return `| ${mark(id, label)} | ${rows.map((x) => int(x?.opsPerSec)).join(' | ')} | ${rows
        .slice(1)
        .map((x) => times(x?.opsPerSec, rows[0]?.opsPerSec))
        .join(' | ')} | ${p50} |`;
    }),
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** What the postgres row is, for runs that have it: a server on loopback, with fsync off. */
function postgresNote(r: EmbeddedResults): string {
  if (!r.mix.some((m) => m.id === 'postgres')) return '';
  return `
The postgres row is \`postgresStore\` with its defaults (an UNLOGGED table: no write-ahead log, emptied
if the server crashes; a pool of up to 10 connections), one statement per call, over loopback to a
throwaway ${r.environment.postgresServer ?? 'PostgreSQL'} cluster the bench starts and removes, run with \`fsync=off\` and
\`synchronous_commit=off\`: no commit waits for a disk, so its writes cost less here than on a server that
flushes. Each workload gets a fresh database. Like valkey, it is a server (the store a fleet without
Redis shares), there for scale beside the embedded stores, not one of them.`;
}

/** Writes bench/EMBEDDED.md and its two charts into `dir`. */
export function writeEmbeddedReport(dir: string, r: EmbeddedResults, resultsFile: string): void {
  const charts = { mix: 'chart-embedded-mix.svg', processes: 'chart-embedded-processes.svg' };
  const stamp = runStamp('npm run bench:embedded', r);
  const link = (path: string) => repositoryLink(path, stamp);
  writeFileSync(
    join(dir, charts.mix),
    barChartSvg({
      title: 'Classic mix (90 % get, 9 % set, 1 % delete), one process',
      stamp,
      series: ['ops/s'],
      groups: r.mix.map((m) => ({ label: m.label, values: [m.result?.opsPerSec] })),
      unit: 'calls/s',
    }),
  );
  const ids = [...new Set(r.processes.map((p) => p.id))];
  writeFileSync(
    join(dir, charts.processes),
    barChartSvg({
      title: `Classic mix, processes on one shared file (${r.environment.cores} cores)`,
      stamp,
      series: r.config.processCounts.map((n) => `${n} process${n > 1 ? 'es' : ''}`),
      groups: ids.map((id) => ({
        label: r.processes.find((p) => p.id === id)!.label,
        values: r.config.processCounts.map((n) => r.processes.find((p) => p.id === id && p.result?.processes === n)?.result?.opsPerSec),
      })),
      unit: 'calls/s, all processes together',
    }),
  );
  const env = r.environment;
  const c = r.config;
  const libs = Object.entries(env.libraries)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const md = `# Embedded stores: the SQLite store against its peers

${dirtyTreeWarning(stamp)}Generated by \`npm run bench:embedded\` on ${r.date}${r.commit ? ` at commit \`${r.commit}\`` : ''} in ${Math.max(1, Math.round(r.durationS / 60))} min; raw numbers: [\`${resultsFile}\`](${link(resultsFile)}).
The workloads are issue 14's, after Python diskcache's reference benchmark. Back to [the main benchmarks](README.md).

**Environment.** ${env.cpu}, **${env.cores} cores**, ${env.memoryGiB} GiB, ${env.os}; Node ${env.node}. Libraries: ${libs}.
1-minute load average ${r.loadAverage.start.toFixed(1)} at the start and ${r.loadAverage.end.toFixed(1)} at the end: on ${env.cores} cores anything above ~1
means other work shared the CPUs, and every figure is slower and noisier for it. Latencies are per call
(\`performance.now()\` around one awaited call, so a few tenths of a µs of promise and timer cost are in every row).

**Method.** Each contender runs through its public API (adapters in [\`embedded/contenders.ts\`](${link('embedded/contenders.ts')})), on a
fresh directory per workload; every read is checked against what was written (a mismatch is flagged ⚠, never
dropped). Rows marked † ran ${Math.round(SLOW_SHARE * 100)} % of the counts (Keyv + @keyv/sqlite: each of its writes is an fsynced
transaction of several milliseconds, and the full counts would take it most of an hour); their rates compare, their
on-disk sizes hold fewer entries. Values are printable bytes; Keyv, which stores text, gets the same characters as a string.
*On disk* is every file the contender left after the workload and \`close()\` (database, WAL, LMDB environment, value files).
The SQLite store runs with its defaults (WAL, \`synchronous = NORMAL\`, least-recently-stored eviction, maxBytes 1 GiB,
values of 128 KiB or more in files) except its busy timeout, 10 s instead of 1 s: on a shared machine a process holding
the write lock can be descheduled for longer than a second, and one failed write would abort a section.
\`createCache\` runs with its defaults too (CBOR, compression above 1 KiB). The valkey row talks to a
redis-server on loopback, for scale: it is a server, not an embedded store.${postgresNote(r)}

Run it: \`npm run bench:embedded\` (${Math.max(1, Math.round(r.durationS / 60))} min here), \`npm run bench:embedded -- --quick\` for a smoke run
(writes \`results/embedded-quick.json\`, leaves this page alone), \`-- --only=sqlite,keyv-sqlite\` for some contenders,
\`-- --report-only\` to rebuild this page from \`results/embedded.json\`.

## Targets (issue 14)

${targets(r).join('\n')}

## The store against raw better-sqlite3 (issue 19)

The baseline is better-sqlite3 used directly ([\`embedded/raw-sqlite.ts\`](${link('embedded/raw-sqlite.ts')})): one
\`key TEXT PRIMARY KEY, value BLOB, expires_at INTEGER\` table WITHOUT ROWID, WAL, \`synchronous = NORMAL\`, three prepared
statements, no bounds, no eviction, no expiry, no value files. The classic mix runs ${r.sideBySide?.rounds.length ?? 0} times for each of the
three below, the contenders alternating and their order rotating, so that a load drifting over the run weighs on all
of them alike; the ratios are medians over the rounds.

${rawTargets(r).join('\n')}

${sideBySideTable(r).join('\n')}

### Processes on one file, write-heavy mix (50 % set, 1 % delete, 49 % get), ${int(c.processOps)} calls per process

Medians of ${r.writeHeavy?.rounds.length ?? 0} interleaved rounds. Writes to one SQLite file are serialised: a second process adds its reads,
not its writes.

${writeHeavyTable(r).join('\n')}

## Classic mix: ${int(c.mixOps)} calls after ${int(c.mixWarmup)} warm-up, keys from 100, values up to ~600 bytes, 90 % get, 9 % set, 1 % delete

![classic mix](${charts.mix})

${mixTable(r).join('\n')}

### The same mix on each runtime's SQLite binding

${runtimeTable(r).join('\n')}

## Value sizes

${sizeTables(r).join('\n')}
**Large values in files beside the database?** The store can keep a value in its own file (written before the
transaction, published by the row that names it). Its two placements, every value inside the database and
every value of 1 KiB or more in a file ([\`embedded/value-placement.ts\`](${link('embedded/value-placement.ts')})), compared:

${filesVerdict(r).join('\n')}

The store's default \`fileThreshold\` is 128 KiB: 64 KB values stay inside the database, 1 MB values go to files.

## Hit ratio: gets over ${int(c.hitKeys)} keys of 256 bytes

${hitTable(r).join('\n')}

## Processes sharing one file: the classic mix, ${int(c.processOps)} calls per process

This machine has **${env.cores} cores**: with more processes than cores they take turns on the CPUs, so 4 processes
cannot be twice as fast as 2 here. Writes to one SQLite file are serialised (one writer at a time; readers never wait).

![processes](${charts.processes})

${processTable(r).join('\n')}
`;
  writeFileSync(join(dir, 'EMBEDDED.md'), md);
}
