import { EXCEPTION_MARKER, STORE_ERROR_MARKER } from './app/app.ts';
import { measureWindow, storePort, warmUp, type LiveRow, type WindowResult } from './measure.ts';
import type { RowRole } from './plan.ts';
import { openRow, rowId, type PlannedRow, type TargetContext } from './row-server.ts';
import { delay } from './support/launch.ts';
import { groupConnectionsTo, groupRssBytes } from './support/proc.ts';

/**
 * One target of a run: every row's server is started (a few at a time) and checked, each is
 * warmed up, then the rows take turns for `rounds` rounds of one window each — A B C, C B A,
 * A B C … — so that a slow minute on a shared machine lands on every row of its round rather
 * than on whichever row happened to run then. Servers wait idle between their windows; each
 * keeps its own keys, so the rows never see each other's data.
 */

/** One row of a table: its windows, or why there are none. */
export interface RowResult {
  target: string;
  kind: 'work' | 'page';
  /** Contender id, or `page-kind:miss%`. */
  id: string;
  label: string;
  /** Work rows: what the row is to the report. */
  role?: RowRole;
  status: 'ok' | 'unavailable' | 'failed';
  /** Why the row has no figures, or why it stopped early. */
  reason?: string;
  /** The failure was expected on this target (the plan says why); it is reported, not counted against the run. */
  expectedFailure?: boolean;
  /** Store connections one server process may hold. */
  connectionsPerProcess?: number;
  /** One-second rates of the warm-up, and whether they settled before its limit. */
  warmup?: { rates: number[]; stable: boolean };
  windows: WindowResult[];
  /** RSS after the warm-up, and when the server had been idle at least two seconds after its last window, MiB. */
  rssWarmMiB?: number;
  rssIdleMiB?: number;
  /** Store connections when idle at the end. */
  connectionsIdle?: number;
  /** Exceptions the server logged from the warm-up to the end, and the first of them. */
  exceptions?: number;
  exceptionLines?: string[];
  /**
   * Store failures cachette reported as error events from the warm-up to the end (timeouts,
   * refused commands): misses and skipped writes, not failed requests; cachette rows only.
   */
  storeErrors?: number;
  storeErrorLines?: string[];
}

/** A row whose server runs, with the tallies taken when it passed its checks. */
interface Running extends LiveRow {
  result: RowResult;
  exceptionsBefore: number;
  storeErrorsBefore: number;
}

const MIB = 1024 * 1024;

/** Runs `rows` of the context's target; every server it starts is stopped before it returns. */
export async function runTarget(ctx: TargetContext, rows: readonly PlannedRow[]): Promise<RowResult[]> {
  const results = rows.map((planned): RowResult => {
    const base: RowResult = { target: ctx.target.id, kind: planned.kind, id: rowId(planned), label: planned.row.label, status: 'ok', windows: [] };
    if (planned.kind === 'work') Object.assign(base, { role: planned.row.role, connectionsPerProcess: planned.row.connectionsPerProcess ?? 1 });
    if (planned.row.unavailable) return { ...base, status: 'unavailable', reason: planned.row.unavailable };
    return base;
  });
  const running: Running[] = [];
  try {
    await startAll(ctx, rows, results, running);
    for (const r of running) {
      try {
        r.result.warmup = await warmUp(ctx, r);
        r.result.rssWarmMiB = Math.round((groupRssBytes(r.launched.pgid, ctx.target.rssProgram) / MIB) * 10) / 10;
        ctx.log(`warmed up ${r.result.id}: ${r.result.warmup.rates.map((x) => Math.round(x)).join(', ')} req/s${r.result.warmup.stable ? '' : ' (not stable)'}`);
      } catch (error) {
        fail(r, (error as Error).message.split('\n')[0]!.slice(0, 300));
      }
      if (!r.launched.running()) fail(r, 'the server exited during the warm-up');
    }
    await runRounds(ctx, running);
    await finish(ctx, running);
  } finally {
    await Promise.all(running.map((r) => r.launched.stop()));
  }
  return results;
}

/** Starts and checks the servers, `startConcurrency` at a time; a row that fails its start is reported, not retried. */
async function startAll(ctx: TargetContext, rows: readonly PlannedRow[], results: RowResult[], running: Running[]): Promise<void> {
  const queue = rows.map((planned, i) => ({ planned, result: results[i]! })).filter(({ result }) => result.status === 'ok');
  const slots = new Array<Running | undefined>(queue.length);
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const at = next++;
      const { planned, result } = queue[at]!;
      const expected = planned.kind === 'work' ? planned.row.expectedFailure : undefined;
      try {
        const { launched, plan } = await openRow(ctx, planned);
        slots[at] = { launched, plan, loadS: 0, result, exceptionsBefore: launched.marked(EXCEPTION_MARKER).count, storeErrorsBefore: launched.marked(STORE_ERROR_MARKER).count };
      } catch (error) {
        // The first line says what failed; the first error line of the server's output says why.
        const [first, ...rest] = (error as Error).message.split('\n');
        const cause = rest.find((l) => /error/i.test(l));
        const message = `${first}${cause ? ` ${cause.trim()}` : ''}`.slice(0, 300);
        // The server's output says why; an expected failure's first line says enough.
        if (!expected) ctx.log(`${result.label}: ${(error as Error).message}\n--- server output:\n${(error as { serverOutput?: string }).serverOutput ?? ''}`);
        Object.assign(result, { status: 'failed', reason: expected ? `${message} — ${expected}` : message, expectedFailure: expected !== undefined });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.cfg.startConcurrency, queue.length) }, worker));
  // Plan order, whatever order the starts finished in.
  for (const slot of slots) if (slot) running.push(slot);
}

/** The rounds: every row still running takes one window per round, in alternating order. */
async function runRounds(ctx: TargetContext, running: Running[]): Promise<void> {
  const started = performance.now();
  for (let round = 0; round < ctx.cfg.rounds; round++) {
    const turn = running.filter((r) => r.result.status === 'ok' && (r.result.kind === 'work' || round < ctx.cfg.pageRounds));
    if (round % 2 === 1) turn.reverse();
    const rates: string[] = [];
    for (const r of turn) {
      try {
        const window = await measureWindow(ctx, r, round, (performance.now() - started) / 1000);
        r.result.windows.push(window);
        rates.push(`${r.result.id} ${Math.round(window.reqPerSec).toLocaleString('en-US')}`);
      } catch (error) {
        fail(r, (error as Error).message.split('\n')[0]!.slice(0, 300));
      }
      if (!r.launched.running()) fail(r, `the server exited during round ${round + 1}`);
    }
    ctx.log(`round ${round + 1}/${ctx.cfg.rounds} (req/s): ${rates.join(' · ')}`);
  }
}

/** After the rounds: the idle sample, and the tallies of exceptions and store errors. */
async function finish(ctx: TargetContext, running: Running[]): Promise<void> {
  // Store errors are tallied once a second, and every server has now been idle since its last window.
  await delay(2000);
  const port = storePort(ctx);
  for (const r of running) {
    const { result, launched } = r;
    result.rssIdleMiB = Math.round((groupRssBytes(launched.pgid, ctx.target.rssProgram) / MIB) * 10) / 10;
    result.connectionsIdle = port === undefined ? 0 : groupConnectionsTo(launched.pgid, port);
    const thrown = launched.marked(EXCEPTION_MARKER);
    result.exceptions = thrown.count - r.exceptionsBefore;
    if (thrown.count > 0) result.exceptionLines = thrown.first;
    const storeTally = launched.marked(STORE_ERROR_MARKER);
    result.storeErrors = storeTally.count - r.storeErrorsBefore;
    if (storeTally.count > 0) result.storeErrorLines = storeTally.first;
  }
}

/** Takes a row out of the rounds with the reason and the server's last output. */
function fail(r: Running, reason: string): void {
  if (r.result.status !== 'ok') return;
  r.result.status = 'failed';
  r.result.reason = reason;
  const tail = r.launched.outputTail().split('\n').slice(-3).join(' | ');
  if (tail) r.result.reason += ` (server output: ${tail.slice(0, 300)})`;
}
