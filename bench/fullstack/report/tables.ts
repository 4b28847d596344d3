/**
 * The full-stack report's tables and its target checks, computed from the results only
 * (nothing typed in by hand), so a rerun regenerates every figure and every verdict.
 */
import { Footnotes, tableHead } from '../../report/markdown.ts';
import { median } from '../../support/stats.ts';
import type { FullstackResults, TargetResult } from '../results.ts';
import type { RowResult } from '../run-target.ts';
import { bestPeer, cachetteRow, errorCount, fastestRaw, measured, roundRatio, summarize, type RoundRatio, type RowSummary } from './summary.ts';

const num = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;

/** `1.23×`, with the lowest and highest round when they differ. */
function showRatio(r: RoundRatio | undefined): string {
  if (!r) return '—';
  const range = r.rounds > 1 ? ` (${r.low.toFixed(2)}–${r.high.toFixed(2)})` : '';
  return `${r.median.toFixed(2)}×${range}`;
}

/** The line under every table: which run, which commit, how loaded the machine was. */
export function runLine(r: FullstackResults, target?: TargetResult): string {
  const load = target ? target.loadAverage : r.loadAverage;
  const busy = target?.idleCoreBusyPct === undefined ? '' : `; the server's core was ${target.idleCoreBusyPct.toFixed(0)} % busy with other processes just before`;
  const windows = target ? [...target.work, ...target.pages].flatMap((row) => row.windows) : [];
  const others = windows.flatMap((w) => (w.otherCpuPct === undefined ? [] : [w.otherCpuPct]));
  const steal = windows.flatMap((w) => (w.stealPct === undefined ? [] : [w.stealPct]));
  const stolen = steal.length ? ` (steal ${median(steal).toFixed(1)} %)` : '';
  const during = others.length ? `, and other processes took a median ${median(others).toFixed(0)} % of it during the windows${stolen}` : '';
  return `<sub>Run of ${r.date.slice(0, 16).replace('T', ' ')} UTC on commit \`${r.commit}\`, 1-minute load average ${load.start.toFixed(1)} → ${load.end.toFixed(1)}${busy}${during}.</sub>`;
}

/** The store connections column: under load / idle, and what the row may hold. */
function connectionsCell(target: TargetResult, s: RowSummary): string {
  if (target.id === 'workerd-kv') return 'n/a (in process)';
  return `${s.connections.peak} / ${s.connections.idle}${target.id === 'workerd-upstash' ? ' (HTTP)' : ''}`;
}

/** One target's `/work` table: every row against the fastest raw client and the best peer, round by round. */
export function workTable(target: TargetResult): string {
  const raw = fastestRaw(target);
  const peer = bestPeer(target);
  const notes = new Footnotes();
  const header = [
    'contender',
    'req/s (lowest–highest window)',
    `÷ fastest raw${raw ? ` (${raw.id})` : ''}`,
    `÷ best peer${peer ? ` (${peer.id})` : ''}`,
    'p99 ms',
    'server CPU ms/req',
    'RSS warm → peak MiB',
    'RSS idle MiB',
    'RSS trend MiB/min of load',
    target.id === 'workerd-upstash' ? 'sockets to the bridge, load / idle' : 'store conns, load / idle',
    'errors (non-2xx / socket / exceptions)',
  ];
  const lines = tableHead(header);
  for (const row of target.work) {
    lines.push(
      rowLine(row, header.length, notes, (s) => [
        raw && row !== raw ? showRatio(roundRatio(row, raw)) : raw ? '1×' : '—',
        peer && row !== peer ? showRatio(roundRatio(row, peer)) : peer ? '1×' : '—',
        ms(s.latencyP99Ms),
        cpuCell(s),
        `${s.rss.warmMiB.toFixed(0)} → ${s.rss.peakMiB.toFixed(0)}`,
        s.rss.idleMiB.toFixed(0),
        signed(s.rss.slopeMiBPerMin),
        connectionsCell(target, s),
      ]),
    );
  }
  lines.push(...notes.lines());
  return lines.join('\n');
}

/** One target's `/page/:id` table, against no cache. */
export function pageTable(target: TargetResult): string {
  const none = target.pages.find((r) => r.id === 'none:0' && measured(r));
  const notes = new Footnotes();
  const header = [
    'page cache',
    'req/s (lowest–highest window)',
    '÷ no cache',
    'p99 ms',
    'server CPU ms/req',
    'RSS warm → peak MiB',
    'store conns, load / idle',
    'errors (non-2xx / socket / exceptions)',
  ];
  const lines = tableHead(header);
  for (const row of target.pages) {
    lines.push(
      rowLine(row, header.length, notes, (s) => [
        none && row !== none ? showRatio(roundRatio(row, none)) : none ? '1×' : '—',
        ms(s.latencyP99Ms),
        cpuCell(s),
        `${s.rss.warmMiB.toFixed(0)} → ${s.rss.peakMiB.toFixed(0)}`,
        connectionsCell(target, s),
      ]),
    );
  }
  lines.push(...notes.lines());
  return lines.join('\n');
}

const cpuCell = (s: RowSummary) => (s.cpuMsPerRequest === undefined ? '—' : s.cpuMsPerRequest.toFixed(3));

/**
 * One line of a table: the label (marked when the row stopped early), req/s with its range, the
 * table's own cells, and the errors; or why there are no figures.
 */
function rowLine(row: RowResult, columns: number, notes: Footnotes, cells: (s: RowSummary) => string[]): string {
  const stopped = row.status !== 'ok' ? notes.mark(`${row.label}: ${row.reason ?? 'no reason recorded'}`) : '';
  if (!measured(row)) {
    const what = row.status === 'unavailable' ? 'not available' : row.expectedFailure ? 'does not run' : '**did not run**';
    return `| ${row.label} | ${what}${stopped} ${'| '.repeat(columns - 2)}|`;
  }
  const s = summarize(row);
  return `| ${[
    `${row.label}${row.status === 'ok' ? '' : ` (**stopped**${stopped})`}`,
    `${num(s.reqPerSec)} (${num(s.reqPerSecRange[0])}–${num(s.reqPerSecRange[1])})`,
    ...cells(s),
    errorsCell(row, s, notes),
  ].join(' | ')} |`;
}

function errorsCell(row: RowResult, s: RowSummary, notes: Footnotes): string {
  const quote = (lines: readonly string[]) => lines.map((l) => `\`${l.replace(/`/g, "'").slice(0, 240)}\``).join('; ');
  const e = s.errors;
  const exceptionNote = row.exceptionLines?.length ? notes.mark(`${row.label}, first exceptions: ${quote(row.exceptionLines)}`) : '';
  const storeNote = row.storeErrors
    ? notes.mark(`${row.label}: cachette reported ${num(row.storeErrors)} store errors under load (each a miss or a skipped write, not a failed request); first: ${quote(row.storeErrorLines ?? [])}`)
    : '';
  return `${errorCount(row) === 0 ? '0' : `**${e.non2xx} / ${e.socket} / ${e.exceptions}**`}${exceptionNote}${storeNote}`;
}

/** cachette against the fastest raw client and the best peer, one line per target. */
export function summaryTable(targets: readonly TargetResult[]): string {
  const lines = tableHead(['runtime', 'cachette req/s', 'fastest raw client', 'req/s', 'cachette ÷ raw', 'best peer', 'req/s', 'cachette ÷ best peer', 'cachette CPU ÷ raw CPU per request']);
  for (const t of targets) {
    const c = cachetteRow(t);
    const raw = fastestRaw(t);
    const peer = bestPeer(t);
    const rate = (r: RowResult | undefined) => (measured(r) ? num(summarize(r).reqPerSec) : '—');
    const ratio = (ref: RowResult | undefined) => (measured(c) && measured(ref) ? showRatio(roundRatio(c, ref)) : '—');
    const cpu = (r: RowResult | undefined) => (measured(r) ? summarize(r).cpuMsPerRequest : undefined);
    const cpuRatio = cpu(c) && cpu(raw) ? `${(cpu(c)! / cpu(raw)!).toFixed(2)}×` : '—';
    lines.push(`| ${t.label} | ${rate(c)} | ${raw?.label ?? '—'} | ${rate(raw)} | ${ratio(raw)} | ${peer?.label ?? '—'} | ${rate(peer)} | ${ratio(peer)} | ${cpuRatio} |`);
  }
  return lines.join('\n');
}

/** One target of the issue, checked against this run. */
export interface TargetCheck {
  what: string;
  measured: string;
  met: boolean | undefined;
}

const SERVER_TARGETS = ['node', 'bun', 'deno'] as const;

/** The issue's targets (issue 18), each with what this run measured and whether it is met. */
export function targetChecks(targets: readonly TargetResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratioCheck = (what: string, target: TargetResult | undefined, row: RowResult | undefined, ref: RowResult | undefined, atLeast: number) => {
    if (!target) return;
    const r = measured(row) && measured(ref) ? roundRatio(row, ref) : undefined;
    checks.push({ what, measured: r ? `${showRatio(r)} of ${ref!.label}` : 'not measured', met: r ? r.median >= atLeast : undefined });
  };
  for (const id of SERVER_TARGETS) {
    const t = targets.find((x) => x.id === id);
    if (!t) continue;
    ratioCheck(`${t.label}: cachette ≥ 1.0× the fastest raw client`, t, cachetteRow(t), fastestRaw(t), 1);
    ratioCheck(`${t.label}: cachette ≥ 1.5× the best peer`, t, cachetteRow(t), bestPeer(t), 1.5);
  }
  const node = targets.find((t) => t.id === 'node');
  ratioCheck(
    "Node: cachette with `l1: { consistency: 'tracking' }` ≥ 2× the best peer",
    node,
    node?.work.find((r) => r.id === 'cachette-l1'),
    node && bestPeer(node),
    2,
  );
  for (const id of ['node', 'bun', 'deno']) {
    const t = targets.find((x) => x.id === id);
    const coherent = t?.work.find((r) => r.id === 'cachette-coherent');
    ratioCheck(`${t?.label ?? id}: cachette with \`l1: { consistency: 'coherent' }\` ≥ 1.0× the row without L1`, t, coherent, t && cachetteRow(t), 1);
    ratioCheck(`${t?.label ?? id}: cachette with \`l1: { consistency: 'coherent' }\` ≥ 2× the best peer`, t, coherent, t && bestPeer(t), 2);
  }
  const upstash = targets.find((t) => t.id === 'workerd-upstash');
  ratioCheck('workerd over Upstash: cachette ≥ 1.0× raw @upstash/redis', upstash, upstash && cachetteRow(upstash), upstash && fastestRaw(upstash), 1);
  const bun = targets.find((t) => t.id === 'bun');
  if (bun) {
    const other = bun.work.find((r) => r.role === 'cachette-variant');
    ratioCheck("Bun: cachette's default Valkey transport (runtimes/shared/valkey-client.ts) is the faster of the two", bun, cachetteRow(bun), other, 1);
  }

  const cachettes = targets.flatMap((t) => t.work.filter((r) => r.role?.startsWith('cachette') && measured(r)).map((r) => ({ t, r, s: summarize(r) })));
  const redisRows = cachettes.filter(({ t }) => t.id !== 'workerd-upstash' && t.id !== 'workerd-kv');
  if (redisRows.length) {
    const allowed = ({ t, r }: { t: TargetResult; r: RowResult }) => (r.connectionsPerProcess ?? 1) * (t.id === 'node-cluster' ? 2 : 1);
    checks.push({
      what: 'Connections: one per process, two with tracking (cachette rows)',
      measured: redisRows.map((x) => `${x.t.id} ${x.r.id} ${x.s.connections.peak}`).join(', '),
      met: redisRows.every((x) => x.s.connections.peak <= allowed(x)),
    });
  }
  if (cachettes.length) {
    // Flat: from the first window to the last, RSS grew by no more than 5 MiB or 5 %, whichever is more.
    const growth = ({ r }: { r: RowResult }) => r.windows[r.windows.length - 1]!.rssMiB - r.windows[0]!.rssMiB;
    const flat = (x: { r: RowResult }) => growth(x) <= Math.max(5, 0.05 * x.r.windows[0]!.rssMiB);
    checks.push({
      what: 'Memory: RSS flat under load (first window to last: + ≤ 5 MiB or 5 %), cachette rows',
      measured: cachettes.map((x) => `${x.t.id} ${x.r.id} ${signed(growth(x))} MiB`).join('; '),
      met: cachettes.every(flat),
    });
  }
  const withRaw = targets.flatMap((t) => {
    const c = cachetteRow(t);
    const raw = fastestRaw(t);
    return measured(c) && measured(raw) && t.id !== 'workerd-kv' ? [{ t, extra: summarize(c).rss.peakMiB - summarize(raw).rss.peakMiB }] : [];
  });
  if (withRaw.length) {
    checks.push({
      what: "Memory: cachette's peak RSS within 20 MiB of the fastest raw client's",
      measured: withRaw.map((x) => `${x.t.id} ${signed(x.extra)} MiB`).join(', '),
      met: withRaw.every((x) => x.extra <= 20),
    });
  }
  const rows = targets.flatMap((t) => [...t.work, ...t.pages]);
  const withErrors = rows.filter((r) => measured(r) && errorCount(r) > 0);
  const broken = rows.filter((r) => r.status === 'failed' && !r.expectedFailure);
  checks.push({
    what: 'Errors: 0 on every runtime (and every row that should run, ran)',
    measured: [
      withErrors.length ? withErrors.map((r) => `${r.target} ${r.label}: ${errorCount(r)}`).join('; ') : `0 errors in ${rows.filter(measured).length} rows`,
      ...broken.map((r) => `${r.target} ${r.label} did not run to the end`),
    ].join('; '),
    met: withErrors.length === 0 && broken.length === 0,
  });
  return checks;
}

/** The checks as a table. */
export function checksTable(checks: readonly TargetCheck[]): string {
  return ['| target | this run | met |', '|---|---|:---:|', ...checks.map((c) => `| ${c.what} | ${c.measured} | ${c.met === undefined ? 'n/a' : c.met ? 'yes' : '**no**'} |`)].join('\n');
}
