import { peerLibraryIds, rawClientIds } from '../contenders/registry.ts';
import { PHASES } from '../contenders/types.ts';
import type { ContenderResult } from '../phases/run-phases.ts';

const CACHETTE = 'cachette-valkey';
const num = (n: number) => n.toLocaleString('en-US');

/**
 * Per phase, cachette (valkey, defaults) against the fastest raw client and the best peer
 * library of the same table: calls/s, the ratio, and the client CPU per call of cachette and
 * of the fastest raw client. A ratio under 1.00× is shown as it is.
 */
export function ratioTable(rows: readonly ContenderResult[]): string {
  const cachette = rows.find((r) => r.id === CACHETTE);
  if (!cachette) return '(cachette did not run)';
  const lines = [
    '| phase | cachette calls/s | fastest raw client | calls/s | cachette ÷ raw | best peer library | calls/s | cachette ÷ peer | CPU µs/call cachette | CPU µs/call that raw client |',
    '|---|---:|---|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const phase of PHASES) {
    const mine = cachette.phases.find((p) => p.phase === phase);
    if (!mine) continue;
    const bestOf = (ids: ReadonlySet<string>) =>
      rows
        .filter((r) => ids.has(r.id))
        .flatMap((r) => {
          const p = r.phases.find((x) => x.phase === phase);
          return p !== undefined && p.wrong === 0 ? [{ r, p }] : [];
        })
        .sort((a, b) => b.p.callsPerSec - a.p.callsPerSec)[0];
    const raw = bestOf(rawClientIds);
    const peer = bestOf(peerLibraryIds);
    const ratio = (other: number | undefined) => (other ? `**${(mine.callsPerSec / other).toFixed(2)}×**` : 'n/a');
    lines.push(
      `| ${phase} | ${num(mine.callsPerSec)} | ${raw?.r.label ?? '—'} | ${raw ? num(raw.p.callsPerSec) : '—'} | ${ratio(raw?.p.callsPerSec)} | ${peer?.r.label ?? '—'} | ${peer ? num(peer.p.callsPerSec) : '—'} | ${ratio(peer?.p.callsPerSec)} | ${mine.cpuUsPerCall.toFixed(1)} | ${raw ? raw.p.cpuUsPerCall.toFixed(1) : '—'} |`,
    );
  }
  return lines.join('\n');
}
