/**
 * `npm run bench -- --valkey`: the seven phases for a few contenders only (by default cachette
 * over the valkey store with its defaults, node-redis 5 and raw iovalkey), one call at a time and
 * 50 in flight, in interleaved rounds — every round runs each contender once, in a rotated order,
 * each in its own pinned process — so that a machine shared with other work weighs on all of
 * them alike. Prints calls/s and client CPU per call (median over the rounds) with the ratio of
 * the first contender to the second, and writes bench/results/valkey-<runtime>.json.
 *
 *   npm run bench -- --valkey                                  Node, 3 rounds
 *   npm run bench -- --valkey --rounds 5 --runtime bun         the children under Bun (or deno)
 *   npm run bench -- --valkey --contenders cachette-valkey,node-redis --phases get,set
 */
import { PHASES, type PhaseName } from '../contenders/types.ts';
import type { ChildRuntime } from '../support/child-process.ts';
import { median, round } from '../support/stats.ts';
import { runPhasesInChild } from './in-child.ts';
import type { ContenderResult } from './run-phases.ts';

/** What to compare, and how hard. */
export interface CompareOptions {
  contenders: readonly string[];
  phases: readonly PhaseName[];
  rounds: number;
  runtime: ChildRuntime;
  url: string;
  n: number;
  kRuns: number;
  batch: number;
  concurrency: number;
  cpu: number | undefined;
}

/** One contender's figures for one phase in one mode, over the rounds. */
export interface ComparedPhase {
  phase: PhaseName;
  /** Median over the rounds of each round's median calls/s. */
  callsPerSec: number;
  /** Median over the rounds of client CPU per call, µs. */
  cpuUsPerCall: number;
  /** Each round's calls/s, in round order. */
  rounds: number[];
  /** Failed checks over all rounds (must be 0). */
  wrong: number;
  /** Server commands per call, from the last round. */
  serverCommandsPerCall: Record<string, number>;
}

/** The comparison: per mode, per contender, per phase. */
export interface Comparison {
  runtime: ChildRuntime;
  rounds: number;
  modes: Array<{ concurrency: number; contenders: Array<{ id: string; label: string; phases: ComparedPhase[] }> }>;
}

/** Arguments of `--valkey`: `--contenders a,b`, `--phases get,set`, `--rounds N`, `--runtime node|bun|deno`. */
export function readCompareArgs(args: readonly string[]): Pick<CompareOptions, 'contenders' | 'phases' | 'rounds' | 'runtime'> {
  const value = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at < 0 ? undefined : args[at + 1];
  };
  const contenders = (value('contenders') ?? 'cachette-valkey,node-redis,iovalkey').split(',');
  const phases = (value('phases')?.split(',') ?? [...PHASES]) as PhaseName[];
  for (const phase of phases) if (!PHASES.includes(phase)) throw new RangeError(`--phases: no phase "${phase}" (phases: ${PHASES.join(', ')})`);
  const rounds = Number(value('rounds') ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a positive integer, got ${value('rounds')}`);
  const runtime = (value('runtime') ?? 'node') as ChildRuntime;
  if (!['node', 'bun', 'deno'].includes(runtime)) throw new RangeError(`--runtime must be node, bun or deno, got ${runtime}`);
  return { contenders, phases, rounds, runtime };
}

/** Runs the comparison; `log` gets progress lines. */
export async function runComparison(o: CompareOptions, log: (line: string) => void): Promise<Comparison> {
  const modes: Comparison['modes'] = [];
  for (const concurrency of [1, o.concurrency]) {
    const byContender = new Map<string, ContenderResult[]>(o.contenders.map((id) => [id, []]));
    for (let r = 0; r < o.rounds; r++) {
      // Rotate who goes first, so that no contender always runs right after the same one.
      const order = o.contenders.map((_, i) => o.contenders[(i + r) % o.contenders.length]!);
      for (const id of order) {
        const result = await runPhasesInChild({ contender: id, url: o.url, n: o.n, kRuns: o.kRuns, batch: o.batch, concurrency, payload: 'small', only: [...o.phases] }, o.cpu, log, o.runtime);
        log(`${concurrency} in flight, round ${r + 1}/${o.rounds}: ${id} ${result.phases.map((p) => `${p.phase} ${p.callsPerSec.toLocaleString('en-US')} (${p.cpuUsPerCall} µs)`).join(', ')}`);
        byContender.get(id)!.push(result);
      }
    }
    modes.push({
      concurrency,
      contenders: o.contenders.map((id) => {
        const runs = byContender.get(id)!;
        return {
          id,
          label: runs[0]!.label,
          phases: runs[0]!.phases.map((first) => {
            const each = runs.map((run) => run.phases.find((p) => p.phase === first.phase)!);
            return {
              phase: first.phase,
              callsPerSec: Math.round(median(each.map((p) => p.callsPerSec))),
              cpuUsPerCall: round(median(each.map((p) => p.cpuUsPerCall))),
              rounds: each.map((p) => p.callsPerSec),
              wrong: each.reduce((n, p) => n + p.wrong, 0),
              serverCommandsPerCall: each.at(-1)!.serverCommandsPerCall,
            };
          }),
        };
      }),
    });
  }
  return { runtime: o.runtime, rounds: o.rounds, modes };
}

/** The comparison as Markdown: per mode, a row per phase; the first contender's ratio to the second. */
export function comparisonTables(c: Comparison): string {
  const out: string[] = [];
  for (const mode of c.modes) {
    const [first, second] = mode.contenders;
    out.push(`### ${mode.concurrency === 1 ? 'one call at a time' : `${mode.concurrency} in flight`} (${c.runtime}, median of ${c.rounds} rounds)`, '');
    out.push(`| phase | ${mode.contenders.map((x) => `${x.id} calls/s | µs CPU`).join(' | ')} |${second ? ` ${first!.id} ÷ ${second.id} | CPU Δ µs |` : ''}`);
    out.push(`|---|${mode.contenders.map(() => '---:|---:').join('|')}|${second ? '---:|---:|' : ''}`);
    for (const [i, row] of first!.phases.entries()) {
      const cells = mode.contenders.map((x) => {
        const p = x.phases[i]!;
        return `${p.callsPerSec.toLocaleString('en-US')}${p.wrong ? ` (${p.wrong} FAILED)` : ''} | ${p.cpuUsPerCall}`;
      });
      const vs = second ? ` ${(row.callsPerSec / second.phases[i]!.callsPerSec).toFixed(2)}× | ${round(row.cpuUsPerCall - second.phases[i]!.cpuUsPerCall)} |` : '';
      out.push(`| ${row.phase} | ${cells.join(' | ')} |${vs}`);
    }
    out.push('');
  }
  return out.join('\n');
}
