/**
 * The full-stack report's tables and its target checks, computed from the results only
 * (nothing typed in by hand), so a rerun regenerates every figure and every verdict.
 */
import type { TargetId } from '../plan.ts';
import type { TargetResult } from '../results.ts';
import type { RowResult } from '../run-row.ts';
import { Footnotes, tableHead } from '../../report/markdown.ts';

const num = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;

/** The peer libraries of the issue (not raw clients, not cachette). */
export const PEER_IDS: ReadonlySet<string> = new Set(['bentocache-l2', 'bentocache-tiered', 'cache-manager', 'unstorage']);
/** The raw client of each target, the floor a cache layer is measured against. */
export const RAW_IDS: Readonly<Record<TargetId, string>> = {
  node: 'iovalkey',
  'node-cluster': 'iovalkey',
  bun: 'bun-redis',
  deno: 'iovalkey',
  'workerd-upstash': 'upstash',
  'workerd-kv': 'kv',
};

const ok = (row: RowResult | undefined): row is RowResult & Required<Pick<RowResult, 'measure' | 'rss' | 'conns' | 'errors'>> => row?.status === 'ok';
const rate = (row: RowResult | undefined) => (ok(row) ? row.measure.reqPerSec : undefined);

/** Total errors of a row: non-2xx, socket errors and server exceptions. */
export function errorCount(row: RowResult): number {
  return row.errors ? row.errors.non2xx + row.errors.socket + row.errors.exceptions : 0;
}

/** The connections a row is judged on: the bridge's sockets where the store is HTTP, else redis clients. */
function conns(row: RowResult & { conns: NonNullable<RowResult['conns']> }, viaBridge: boolean): string {
  const c = row.conns;
  if (viaBridge && c.redisPeak === 0) return `${c.bridgePeak} / ${c.bridgeSettled} (HTTP)`;
  return `${c.redisPeak} / ${c.redisSettled}`;
}

/** One target's table of rows (work or pages), with numbered notes for rows without figures and for exceptions. */
export function rowsTable(target: TargetResult, rows: readonly RowResult[]): string {
  const viaBridge = target.id === 'workerd-upstash';
  const isKv = target.id === 'workerd-kv';
  const notes = new Footnotes();
  const mark = notes.mark;
  const header = [
    'contender',
    'req/s',
    'avg ms',
    'p99 ms',
    'server CPU ms/req',
    'RSS warm → peak MiB',
    'RSS after MiB',
    'RSS slope %/10 s',
    isKv ? 'conns' : 'conns peak / settled',
    'errors (non-2xx / socket / exceptions)',
  ];
  const lines = tableHead(header);
  for (const row of rows) {
    if (!ok(row)) {
      const what = row.status === 'unavailable' ? 'not available' : row.expectedFailure ? 'does not run' : '**did not run**';
      lines.push(`| ${row.label} | ${what}${mark(`${row.label}: ${row.reason ?? 'no reason recorded'}`)} ${'| '.repeat(header.length - 2)}|`);
      continue;
    }
    const e = row.errors;
    const quote = (lines: readonly string[]) => lines.map((l) => `\`${l.replace(/`/g, "'").slice(0, 240)}\``).join('; ');
    const exceptionNote = row.exceptionLines?.length ? mark(`${row.label}, first exceptions: ${quote(row.exceptionLines)}`) : '';
    const storeNote = row.storeErrors
      ? mark(`${row.label}: cachette reported ${num(row.storeErrors)} store errors under load (each a miss or a skipped write, not a failed request); first: ${quote(row.storeErrorLines ?? [])}`)
      : '';
    lines.push(
      `| ${[
        row.label,
        num(row.measure.reqPerSec),
        ms(row.measure.latencyAvgMs),
        ms(row.measure.latencyP99Ms),
        row.cpuMsPerRequest === undefined ? '—' : row.cpuMsPerRequest.toFixed(2),
        `${row.rss.warmMiB.toFixed(0)} → ${row.rss.peakMiB.toFixed(0)}`,
        row.rss.afterMiB.toFixed(0),
        signed(row.rss.slopePctPer10s),
        isKv ? 'n/a (in process)' : conns(row, viaBridge),
        `${errorCount(row) === 0 ? '0' : `**${e.non2xx} / ${e.socket} / ${e.exceptions}**`}${exceptionNote}${storeNote}`,
      ].join(' | ')} |`,
    );
  }
  lines.push(...notes.lines());
  return lines.join('\n');
}

/** The best peer library on `/work` of a target, by req/s. */
export function bestPeer(target: TargetResult): RowResult | undefined {
  return target.work.filter((r) => PEER_IDS.has(r.id) && ok(r)).sort((a, b) => rate(b)! - rate(a)!)[0];
}

const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');

/** cachette against the raw client and the best peer, one line per target. */
export function summaryTable(targets: readonly TargetResult[]): string {
  const lines = ['| runtime | cachette req/s | raw client req/s | cachette ÷ raw | best peer | best peer req/s | cachette ÷ best peer |', '|---|---:|---:|---:|---|---:|---:|'];
  for (const t of targets) {
    const cachette = t.work.find((r) => r.id === 'cachette');
    const raw = t.work.find((r) => r.id === RAW_IDS[t.id]);
    const peer = bestPeer(t);
    const show = (r: RowResult | undefined) => (rate(r) === undefined ? '—' : num(rate(r)!));
    lines.push(`| ${t.label} | ${show(cachette)} | ${show(raw)} | ${ratio(rate(cachette), rate(raw))} | ${peer?.label ?? '—'} | ${show(peer)} | ${ratio(rate(cachette), rate(peer))} |`);
  }
  return lines.join('\n');
}

/** One target of the issue, checked against this run. */
export interface TargetCheck {
  what: string;
  measured: string;
  met: boolean | undefined;
}

/** The issue's targets (issue 12), each with what this run measured and whether it is met. */
export function targetChecks(targets: readonly TargetResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const find = (id: TargetId) => targets.find((t) => t.id === id);
  const node = find('node');
  if (node) {
    const c = rate(node.work.find((r) => r.id === 'cachette'));
    const peer = bestPeer(node);
    checks.push({
      what: 'Node, one process: cachette ≥ 2× the best peer on /work',
      measured: `${ratio(c, rate(peer))} (${peer?.label ?? 'no peer ran'})`,
      met: c && rate(peer) ? c >= 2 * rate(peer)! : undefined,
    });
    const raw = rate(node.work.find((r) => r.id === 'iovalkey'));
    checks.push({ what: 'Node, one process: cachette ≥ the raw client (iovalkey)', measured: ratio(c, raw), met: c && raw ? c >= raw : undefined });
  }
  const bun = find('bun');
  if (bun) {
    const c = rate(bun.work.find((r) => r.id === 'cachette'));
    const raw = rate(bun.work.find((r) => r.id === 'bun-redis'));
    checks.push({ what: "Bun: cachette ≥ the raw RedisClient's req/s", measured: ratio(c, raw), met: c && raw ? c >= raw : undefined });
    const other = bun.work.find((r) => r.id === 'cachette-iovalkey' || r.id === 'cachette-bun-redis');
    const o = rate(other);
    checks.push({
      what: "Bun: cachette's default Valkey client (runtimes/valkey-client.ts) is the faster one on /work",
      measured: `default ${ratio(c, o)} of ${other?.label ?? 'the other client (did not run)'}`,
      met: c && o ? c >= o : undefined,
    });
  }
  const cachetteRows = targets.flatMap((t) => t.work.filter((r) => r.id === 'cachette' && ok(r)).map((r) => ({ t, r: r as RowResult & Required<Pick<RowResult, 'rss' | 'conns'>> })));
  const redisTargets = cachetteRows.filter(({ t }) => t.id !== 'workerd-upstash' && t.id !== 'workerd-kv');
  if (redisTargets.length) {
    const perProcess = redisTargets.map(({ t, r }) => `${t.id} ${r.conns.redisPeak}`);
    checks.push({
      what: 'Connections: 1 server connection per process (cachette)',
      measured: perProcess.join(', '),
      met: redisTargets.every(({ t, r }) => r.conns.redisPeak <= (t.id === 'node-cluster' ? 2 : 1)),
    });
  }
  if (cachetteRows.length) {
    checks.push({
      what: 'Memory: RSS slope < 1 % per 10 s over the load (cachette)',
      measured: cachetteRows.map(({ t, r }) => `${t.id} ${signed(r.rss.slopePctPer10s)}`).join(', '),
      met: cachetteRows.every(({ r }) => r.rss.slopePctPer10s < 1),
    });
    checks.push({
      what: 'Memory: back within 10 % of the warm level after the load (cachette)',
      measured: cachetteRows.map(({ t, r }) => `${t.id} ${((r.rss.afterMiB / r.rss.warmMiB - 1) * 100).toFixed(0)} %`).join(', '),
      met: cachetteRows.every(({ r }) => r.rss.afterMiB <= r.rss.warmMiB * 1.1),
    });
  }
  const rows = targets.flatMap((t) => [...t.work, ...t.pages]);
  const all = rows.filter(ok);
  const withErrors = all.filter((r) => errorCount(r) > 0);
  const broken = rows.filter((r) => r.status === 'failed' && !r.expectedFailure);
  checks.push({
    what: 'Errors: 0 on every runtime (and every row that should run, ran)',
    measured: [
      withErrors.length ? withErrors.map((r) => `${r.target} ${r.label}: ${errorCount(r)}`).join('; ') : `0 errors in ${all.length} rows`,
      ...broken.map((r) => `${r.target} ${r.label} did not run`),
    ].join('; '),
    met: withErrors.length === 0 && broken.length === 0,
  });
  return checks;
}

/** The checks as a table. */
export function checksTable(checks: readonly TargetCheck[]): string {
  return ['| target | this run | met |', '|---|---|:---:|', ...checks.map((c) => `| ${c.what} | ${c.measured} | ${c.met === undefined ? 'n/a' : c.met ? 'yes' : '**no**'} |`)].join('\n');
}
