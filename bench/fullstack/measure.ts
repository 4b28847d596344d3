import { loadavg } from 'node:os';
import type { TargetContext, LoadPlan } from './row-server.ts';
import type { Launched } from './support/launch.ts';
import { cpuTimes, groupConnectionsTo, groupCpuSeconds, groupRssBytes } from './support/proc.ts';
import { runWrk, type WrkResult } from './support/wrk.ts';

/**
 * One measured window of one row, and the warm-up before its first: what the server did under
 * wrk for a few seconds, with its CPU time, memory and store connections read from /proc
 * around (and halfway through) the load.
 */

/** One measured window: what wrk saw (its duration aside), and what the server spent. */
export interface WindowResult extends Omit<WrkResult, 'durationS'> {
  /** Round of the target (0-based): the rows of a round ran one after the other. */
  round: number;
  /** Seconds since the target's first round started, when this window started. */
  at: number;
  /** Seconds of load this server had taken (warm-up included) when the window ended: the x of the RSS trend. */
  loadS: number;
  /** CPU time (user + system) of the server's processes per request, ms; null when none completed. */
  cpuMsPerRequest: number | null;
  /** Server RSS at the end of the window, MiB. */
  rssMiB: number;
  /** The server's connections to its store (redis-server, or the bridge): the most seen halfway and at the end. */
  connections: number;
  /**
   * Share of the server's core that other processes took during the window, %: the core's busy
   * time minus the server's own. Undefined when the server is not pinned to one core.
   */
  otherCpuPct?: number;
  /** Share of the server's core the hypervisor gave to other guests during the window, %. */
  stealPct?: number;
  /** 1-minute load average at the end of the window. */
  load1: number;
}

/** A started row: its server, what to load, and how much load it has taken so far. */
export interface LiveRow {
  launched: Launched;
  plan: LoadPlan;
  loadS: number;
}

const MIB = 1024 * 1024;

/** The port whose connections count as the server's store connections on this target, if any. */
export function storePort(ctx: TargetContext): number | undefined {
  if (ctx.target.store === 'redis') return ctx.redis.port;
  if (ctx.target.store === 'bridge') return ctx.bridge?.port;
  return undefined;
}

/** wrk's connections on this target. */
export function connectionsOf(ctx: TargetContext): number {
  return Math.min(ctx.cfg.connections, ctx.target.maxConnections ?? Number.POSITIVE_INFINITY);
}

function loadOnce(ctx: TargetContext, live: LiveRow, durationS: number, missPercent?: number): Promise<WrkResult> {
  const pages = live.plan.pages && { keys: live.plan.pages.keys, missPercent: missPercent ?? live.plan.pages.missPercent };
  return runWrk({ url: live.plan.url, connections: connectionsOf(ctx), threads: ctx.cfg.threads, durationS, pages, cpus: ctx.cfg.loadCpus }).finally(() => {
    live.loadS += durationS;
  });
}

/**
 * Loads the row in one-second steps until two steps in a row agree within the tolerance (at
 * least `warmupMinS`, at most `warmupMaxS` seconds): JIT, pools and caches warm up, and the
 * figures start once the rate stopped climbing. Pages are warmed with hits only, so that every
 * id of the hit rows is in the cache before the first window.
 */
export async function warmUp(ctx: TargetContext, live: LiveRow): Promise<{ rates: number[]; stable: boolean }> {
  const { warmupMinS, warmupMaxS, warmupTolerance } = ctx.cfg;
  const rates: number[] = [];
  for (let s = 0; s < warmupMaxS; s++) {
    rates.push((await loadOnce(ctx, live, 1, 0)).reqPerSec);
    const [a, b] = rates.slice(-2);
    if (rates.length >= Math.max(2, warmupMinS) && Math.abs(a! - b!) <= warmupTolerance * Math.max(a!, b!)) return { rates, stable: true };
  }
  return { rates, stable: false };
}

/** Runs one measured window on `live` and reads what it cost. */
export async function measureWindow(ctx: TargetContext, live: LiveRow, round: number, at: number): Promise<WindowResult> {
  const { pgid } = live.launched;
  const program = ctx.target.rssProgram;
  const port = storePort(ctx);
  const connections = () => (port === undefined ? 0 : groupConnectionsTo(pgid, port));
  const core = ctx.target.pinServer ? ctx.cfg.serverCpus : undefined;
  const cpuBefore = groupCpuSeconds(pgid, program);
  const groupBefore = groupCpuSeconds(pgid);
  const coreBefore = core === undefined ? undefined : cpuTimes(core);
  const started = performance.now();
  let halfway = 0;
  // Connections are read halfway too: a client that opens more under load closes them after.
  const probe = setTimeout(
    () => {
      halfway = connections();
    },
    (ctx.cfg.windowS * 1000) / 2,
  );
  let wrk: WrkResult;
  try {
    wrk = await loadOnce(ctx, live, ctx.cfg.windowS);
  } finally {
    clearTimeout(probe);
  }
  const elapsedS = (performance.now() - started) / 1000;
  const { durationS: _, ...load } = wrk;
  const cpu = groupCpuSeconds(pgid, program) - cpuBefore;
  const coreAfter = core === undefined ? undefined : cpuTimes(core);
  const pct = (seconds: number) => Math.round((Math.max(0, seconds) / elapsedS) * 1000) / 10;
  return {
    round,
    at: Math.round(at * 10) / 10,
    loadS: live.loadS,
    ...load,
    cpuMsPerRequest: wrk.requests > 0 ? (cpu * 1000) / wrk.requests : null,
    rssMiB: Math.round((groupRssBytes(pgid, program) / MIB) * 10) / 10,
    connections: Math.max(halfway, connections()),
    ...(coreBefore && coreAfter ? { otherCpuPct: pct(coreAfter.busy - coreBefore.busy - (groupCpuSeconds(pgid) - groupBefore)), stealPct: pct(coreAfter.steal - coreBefore.steal) } : {}),
    load1: Math.round(loadavg()[0]! * 100) / 100,
  };
}
