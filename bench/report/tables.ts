import { PHASES } from '../contenders/types.ts';
import type { ContenderResult } from '../phases/run-phases.ts';
import { Footnotes, tableHead } from './markdown.ts';

const num = (n: number) => n.toLocaleString('en-US');

/** An extra column after the standard ones. */
export interface ExtraColumn {
  header: string;
  cell(r: ContenderResult): string;
}

/**
 * The standard phase table `Adapter | get | … | delete | cpu µs | conns` (calls/s), with numbered
 * footnotes for emulated operations and for failed checks (which must never pass silently).
 */
export function phaseTable(rows: readonly ContenderResult[], extra: readonly ExtraColumn[] = []): string {
  const notes = new Footnotes();
  const mark = notes.mark;
  const header = ['Adapter', 'get', 'get-miss', 'set', 'mget', 'mset', 'incr', 'delete', 'cpu µs', 'conns', ...extra.map((e) => e.header)];
  const lines = tableHead(header);
  for (const r of rows) {
    const cells = PHASES.map((phase) => {
      const p = r.phases.find((x) => x.phase === phase);
      if (!p) return '—';
      let cell = num(p.callsPerSec);
      const note = r.footnotes[phase];
      if (note) cell += mark(`${r.label}, ${phase}: ${note}.`);
      if (p.wrong > 0)
        cell += ` ⚠${mark(`${r.label}, ${phase}: ${p.wrong} failed checks (${phase === 'incr' ? 'increments lost by the non-atomic read-then-write' : 'calls that did not return what was stored'}).`)}`;
      return cell;
    });
    lines.push(`| ${[r.label, ...cells, r.cpuUsPerCall.toFixed(1), String(r.conns), ...extra.map((e) => e.cell(r))].join(' | ')} |`);
  }
  lines.push(...notes.lines());
  return lines.join('\n');
}
