import { peerLibraryIds, rawClientIds } from '../contenders/registry.ts';
import { PHASES, type PhaseName } from '../contenders/types.ts';
import type { ContenderResult, PhaseResult } from '../phases/run-phases.ts';

const CACHETTE = 'cachette-valkey';
const num = (n: number) => n.toLocaleString('en-US');

/** One phase of one table: cachette's row, and the fastest raw client and the best peer library among the rows whose checks passed. */
export interface PhaseComparison {
  phase: PhaseName;
  cachette: PhaseResult;
  raw: { label: string; result: PhaseResult } | undefined;
  peer: { label: string; result: PhaseResult } | undefined;
}

/** Per phase, cachette (valkey, defaults) against the fastest raw client and the best peer library of the same table. */
export function phaseComparisons(rows: readonly ContenderResult[]): PhaseComparison[] {
  const cachette = rows.find((r) => r.id === CACHETTE);
  if (!cachette) return [];
  return PHASES.flatMap((phase) => {
    const mine = cachette.phases.find((p) => p.phase === phase);
    if (!mine) return [];
    const bestOf = (ids: ReadonlySet<string>) =>
      rows
        .filter((r) => ids.has(r.id))
        .flatMap((r) => {
          const p = r.phases.find((x) => x.phase === phase);
          return p !== undefined && p.wrong === 0 ? [{ label: r.label, result: p }] : [];
        })
        .sort((a, b) => b.result.callsPerSec - a.result.callsPerSec)[0];
    return [{ phase, cachette: mine, raw: bestOf(rawClientIds), peer: bestOf(peerLibraryIds) }];
  });
}

/**
 * The comparisons as a table: calls/s, the ratios, and the client CPU per call of cachette and
 * of the fastest raw client. A ratio under 1.00× is shown as it is.
 */
export function ratioTable(rows: readonly ContenderResult[]): string {
  const comparisons = phaseComparisons(rows);
  if (comparisons.length === 0) return '(cachette did not run)';
  const lines = [
    '| phase | cachette calls/s | fastest raw client | calls/s | cachette ÷ raw | best peer library | calls/s | cachette ÷ peer | CPU µs/call cachette | CPU µs/call that raw client |',
    '|---|---:|---|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const { phase, cachette: mine, raw, peer } of comparisons) {
    const ratio = (other: number | undefined) => (other ? `**${(mine.callsPerSec / other).toFixed(2)}×**` : 'n/a');
    lines.push(
      `| ${phase} | ${num(mine.callsPerSec)} | ${raw?.label ?? '—'} | ${raw ? num(raw.result.callsPerSec) : '—'} | ${ratio(raw?.result.callsPerSec)} | ${peer?.label ?? '—'} | ${peer ? num(peer.result.callsPerSec) : '—'} | ${ratio(peer?.result.callsPerSec)} | ${mine.cpuUsPerCall.toFixed(1)} | ${raw ? raw.result.cpuUsPerCall.toFixed(1) : '—'} |`,
    );
  }
  return lines.join('\n');
}
