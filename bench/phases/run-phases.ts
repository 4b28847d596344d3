import { PHASES, type ContenderSpec, type PhaseName } from '../contenders/types.ts';
import { settledHeapBytes } from '../support/heap.ts';
import { timedPass } from '../support/measure.ts';
import type { ValueCheck, ValueFactory } from '../support/payloads.ts';
import { commandDelta, type CommandCounts, type ServerMonitor } from '../support/server.ts';
import { median, round } from '../support/stats.ts';
import { phaseDefs, type PhaseContext } from './phases.ts';

/** The measured figures of one phase for one contender in one mode. */
export interface PhaseResult {
  phase: PhaseName;
  /** Median over the timed runs. */
  callsPerSec: number;
  /** Calls per second of every timed run, in order. */
  runs: number[];
  /** Process CPU per call over the timed runs, µs. */
  cpuUsPerCall: number;
  /** JS heap retained across the phase (after full collections), KiB. */
  heapKiB: number;
  /** Peak server connections during the phase, the harness's monitor excluded. */
  conns: number;
  /** Calls or read-back checks that did not do the expected work (must be 0). */
  wrong: number;
  /** Server commands per call during the timed runs, by command name. */
  serverCommandsPerCall: Record<string, number>;
}

/** All seven phases of one contender in one mode. */
export interface ContenderResult {
  id: string;
  label: string;
  concurrency: number;
  footnotes: Partial<Record<PhaseName, string>>;
  phases: PhaseResult[];
  /** Process CPU per call over all phases, µs. */
  cpuUsPerCall: number;
  /** Peak connections over all phases. */
  conns: number;
}

/**
 * What the phases need to know about the servers: one server's ServerMonitor, or a cluster's
 * (bench/cluster/cluster-monitor.ts), which sums over its masters.
 */
export interface PhaseMonitor {
  /** Empties the database(s) between contenders. */
  flush(): Promise<void>;
  /** Samples client connections until {@link stopSampling}. */
  startSampling(): void;
  stopSampling(): Promise<void>;
  /** The peak client connections since the last call, the harness's own excluded. */
  takePeak(): number;
  /** Calls per command so far. */
  commandCounts(): Promise<CommandCounts>;
}

/** How a contender is run (against one server's monitor unless `M` says otherwise). */
export interface PhaseRunOptions<M extends PhaseMonitor = ServerMonitor> {
  /** What the contender opens: a server URL, or a cluster's `host:port,…` seed list. */
  url: string;
  monitor: M;
  n: number;
  kRuns: number;
  batch: number;
  concurrency: number;
  value: ValueFactory;
  check: ValueCheck;
  /** Only these phases (all by default). */
  only?: readonly PhaseName[];
  /** Called after every phase, for the progress display. */
  onPhase?: (r: PhaseResult) => void;
  /** Called after the phase's timed runs, before the contender moves on (e.g. MEMORY USAGE). */
  afterPhase?: (phase: PhaseName, prefix: string) => Promise<void>;
}

/**
 * Opens the contender, runs each phase (prepare, one warm-up pass, K timed passes, verify)
 * and closes it. The database is flushed before and after so the server holds only this
 * contender's keys.
 */
export async function runPhases(spec: ContenderSpec, o: PhaseRunOptions<PhaseMonitor>): Promise<ContenderResult> {
  await o.monitor.flush();
  const contender = await spec.open(o.url);
  const results: PhaseResult[] = [];
  try {
    for (const def of phaseDefs) {
      if (o.only && !o.only.includes(def.name)) continue;
      const ctx: PhaseContext = {
        contender,
        prefix: `bench:${spec.id}:${o.concurrency}`,
        n: o.n,
        batch: o.batch,
        passes: o.kRuns + 1,
        value: o.value,
        check: o.check,
      };
      await def.prepare?.(ctx);
      const heap0 = settledHeapBytes();
      o.monitor.takePeak();
      const runs: number[] = [];
      let cpuUs = 0;
      let wrong = 0;
      const commands: Record<string, number> = {};
      for (let pass = 0; pass <= o.kRuns; pass++) {
        await def.beforePass?.(ctx);
        const before = pass > 0 ? await o.monitor.commandCounts() : undefined;
        o.monitor.startSampling();
        const r = await timedPass(o.n, o.concurrency, (i) => def.op(ctx, i));
        await o.monitor.stopSampling();
        wrong += r.wrong;
        if (!before) continue; // The warm-up pass is checked but not timed.
        for (const [name, calls] of Object.entries(commandDelta(before, await o.monitor.commandCounts()))) {
          commands[name] = (commands[name] ?? 0) + calls;
        }
        runs.push((o.n / r.ms) * 1000);
        cpuUs += r.cpuUs;
      }
      const conns = o.monitor.takePeak();
      const heapKiB = (settledHeapBytes() - heap0) / 1024;
      wrong += (await def.verify?.(ctx)) ?? 0;
      await o.afterPhase?.(def.name, ctx.prefix);
      const calls = o.n * o.kRuns;
      const result: PhaseResult = {
        phase: def.name,
        callsPerSec: Math.round(median(runs)),
        runs: runs.map((r) => Math.round(r)),
        cpuUsPerCall: round(cpuUs / calls),
        heapKiB: round(heapKiB, 1),
        conns,
        wrong,
        serverCommandsPerCall: Object.fromEntries(Object.entries(commands).map(([k, v]) => [k, round(v / calls, 3)])),
      };
      results.push(result);
      o.onPhase?.(result);
    }
  } finally {
    await contender.close();
    await o.monitor.flush();
  }
  const totalCalls = results.length * o.n * o.kRuns;
  const totalCpu = results.reduce((sum, r) => sum + r.cpuUsPerCall * o.n * o.kRuns, 0);
  return {
    id: spec.id,
    label: spec.label,
    concurrency: o.concurrency,
    footnotes: spec.footnotes ?? {},
    phases: [...results].sort((a, b) => PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase)),
    cpuUsPerCall: round(totalCpu / totalCalls),
    conns: Math.max(0, ...results.map((r) => r.conns)),
  };
}
