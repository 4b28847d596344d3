/**
 * What the report says about a row, computed from its windows only: medians, the RSS trend, the
 * errors, and ratios against another row of the same target taken round by round (both rows
 * ran within seconds of each other in a round, so a slow stretch of a shared machine cancels
 * out of the ratio).
 */
import type { WindowResult } from '../measure.ts';
import type { TargetResult } from '../results.ts';
import type { RowResult } from '../run-target.ts';
import { median } from '../../support/stats.ts';

/** Least-squares slope of y over x; 0 with fewer than two distinct x. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** One row's figures. */
export interface RowSummary {
  /** Median over the windows. */
  reqPerSec: number;
  /** Lowest and highest window. */
  reqPerSecRange: [number, number];
  latencyP50Ms: number;
  latencyP99Ms: number;
  cpuMsPerRequest: number | undefined;
  rss: {
    warmMiB: number;
    peakMiB: number;
    idleMiB: number;
    /** Least-squares trend of the windows' RSS over the load the server had taken, MiB per minute of load. */
    slopeMiBPerMin: number;
  };
  /** Store connections: the most seen under load, and when idle at the end. */
  connections: { peak: number; idle: number };
  errors: { non2xx: number; socket: number; exceptions: number };
  /** Median share of the server's core other processes took during the windows, %. */
  otherCpuPct: number | undefined;
  windows: number;
}

/** True when the row has measured windows (it may have stopped early: see its status). */
export const measured = (row: RowResult | undefined): row is RowResult & { windows: [WindowResult, ...WindowResult[]] } => row !== undefined && row.windows.length > 0;

/** The figures of a row with windows. */
export function summarize(row: RowResult): RowSummary {
  const w = row.windows;
  const rates = w.map((x) => x.reqPerSec);
  const cpu = w.flatMap((x) => (x.cpuMsPerRequest === null ? [] : [x.cpuMsPerRequest]));
  const other = w.flatMap((x) => (x.otherCpuPct === undefined ? [] : [x.otherCpuPct]));
  const rss = w.map((x) => x.rssMiB);
  return {
    reqPerSec: median(rates),
    reqPerSecRange: [Math.min(...rates), Math.max(...rates)],
    latencyP50Ms: median(w.map((x) => x.latencyP50Ms)),
    latencyP99Ms: median(w.map((x) => x.latencyP99Ms)),
    cpuMsPerRequest: cpu.length ? median(cpu) : undefined,
    rss: {
      warmMiB: row.rssWarmMiB ?? rss[0]!,
      peakMiB: Math.max(...rss),
      idleMiB: row.rssIdleMiB ?? rss[rss.length - 1]!,
      slopeMiBPerMin: slope(w.map((x) => [x.loadS, x.rssMiB] as const)) * 60,
    },
    connections: { peak: Math.max(...w.map((x) => x.connections)), idle: row.connectionsIdle ?? 0 },
    errors: { non2xx: sum(w, 'non2xx'), socket: sum(w, 'socketErrors'), exceptions: row.exceptions ?? 0 },
    otherCpuPct: other.length ? median(other) : undefined,
    windows: w.length,
  };
}

function sum(windows: readonly WindowResult[], field: 'non2xx' | 'socketErrors'): number {
  return windows.reduce((n, x) => n + x[field], 0);
}

/** Total errors of a row: non-2xx, socket errors and server exceptions. */
export function errorCount(row: RowResult): number {
  const e = summarize(row).errors;
  return e.non2xx + e.socket + e.exceptions;
}

/** A ratio of two rows of one target: the median over the rounds both ran, and its lowest and highest round. */
export interface RoundRatio {
  median: number;
  low: number;
  high: number;
  rounds: number;
}

/** `row` ÷ `reference`, req/s, round by round; undefined when they share no round. */
export function roundRatio(row: RowResult, reference: RowResult): RoundRatio | undefined {
  const byRound = new Map(reference.windows.map((x) => [x.round, x.reqPerSec]));
  const ratios = row.windows.flatMap((x) => {
    const ref = byRound.get(x.round);
    return ref ? [x.reqPerSec / ref] : [];
  });
  if (ratios.length === 0) return undefined;
  return { median: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios), rounds: ratios.length };
}

/**
 * The fastest of a target's rows with `role`, judged as the ratio columns are: round by round.
 * Each row scores the sum of the logs of its median round ratios against the others; the
 * highest wins. (Medians of req/s alone could pick a row that lost most rounds to another, when
 * the two ran in different parts of slow rounds.)
 */
function fastest(target: TargetResult, role: 'raw' | 'peer'): RowResult | undefined {
  const rows = target.work.filter((r) => r.role === role && measured(r));
  const score = (row: RowResult) => rows.reduce((sum, other) => sum + (other === row ? 0 : Math.log(roundRatio(row, other)?.median ?? 1)), 0);
  return rows.map((r) => ({ r, score: score(r) })).sort((a, b) => b.score - a.score)[0]?.r;
}

/** The fastest raw client of a target: the floor a cache layer is measured against. */
export const fastestRaw = (target: TargetResult): RowResult | undefined => fastest(target, 'raw');

/** The best peer library of a target. */
export const bestPeer = (target: TargetResult): RowResult | undefined => fastest(target, 'peer');

/** cachette's row with its defaults. */
export const cachetteRow = (target: TargetResult): RowResult | undefined => target.work.find((r) => r.role === 'cachette');
