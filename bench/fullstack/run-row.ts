import { join } from 'node:path';
import { freePort } from '../../test/support/redis-server.ts';
import type { ServerMonitor } from '../support/server.ts';
import { EXCEPTION_MARKER, STORE_ERROR_MARKER } from './app/app.ts';
import type { WorkResult } from './app/workload.ts';
import type { FullstackConfig } from './config.ts';
import type { PageRow, Target, TargetId, WorkRow } from './plan.ts';
import { httpRequest } from './support/http.ts';
import { delay, launch, waitForHttp, type Launched } from './support/launch.ts';
import { groupCpuSeconds } from './support/proc.ts';
import { connectedClients, rssSlopePctPer10s, Sampler, type Sample } from './support/sampler.ts';
import { ROOT, type Service } from './support/services.ts';
import type { WorkerBundle } from './support/worker-bundle.ts';
import { runWrk, type WrkResult } from './support/wrk.ts';

/** What every row of one target shares. */
export interface TargetContext {
  cfg: FullstackConfig;
  target: Target;
  monitor: ServerMonitor;
  redis: Service;
  bridge?: Service & { token: string };
  bundle?: WorkerBundle;
  /** DENO_DIR for Deno servers: the run's own, so Deno's on-disk Cache API leaves nothing behind. */
  denoDir?: string;
  log(line: string): void;
}

/** One row of a table: figures, or why there are none. */
export interface RowResult {
  target: TargetId;
  kind: 'work' | 'page';
  /** Contender id, or `page-kind:miss%`. */
  id: string;
  label: string;
  status: 'ok' | 'unavailable' | 'failed';
  /** Why the row has no figures. */
  reason?: string;
  /** The failure was expected on this target (the plan says why); it is reported, not counted against the run. */
  expectedFailure?: boolean;
  measure?: WrkResult;
  /** The load after the measured window (work rows), for the RSS trend. */
  soak?: WrkResult;
  /**
   * The server's CPU time per request over the measured window, ms (user + system, all its
   * processes): what a request costs, less moved than req/s by other work on a shared machine.
   */
  cpuMsPerRequest?: number;
  rss?: { warmMiB: number; peakMiB: number; afterMiB: number; slopePctPer10s: number };
  /** Peak during the load and level after it: redis clients, and sockets to the bridge. */
  conns?: { redisPeak: number; redisSettled: number; bridgePeak: number; bridgeSettled: number };
  /** Over the measured window and the soak. */
  errors?: { non2xx: number; socket: number; exceptions: number };
  /** The first exceptions the server logged (during the whole row), to say what went wrong. */
  exceptionLines?: string[];
  /**
   * Store failures cachette reported as error events over the measured window and the soak
   * (timeouts, refused commands): misses and skipped writes, not failed requests; cachette rows only.
   */
  storeErrors?: number;
  /** The first of them (during the whole row). */
  storeErrorLines?: string[];
  samples: Sample[];
}

/** The sanity request: fixed keys, so the answer is known (two even keys in a row of ten → 5 hits). */
export const SANITY_QUERY = '/work?read=4&write=6&doc=3&counter=7';

/** Checks two answers to {@link SANITY_QUERY}; returns what is wrong, or undefined. */
export function checkSanity(first: WorkResult, second: WorkResult): string | undefined {
  if (!first.small || first.many !== 5 || !first.doc) return `expected {small: true, many: 5, doc: true}, got ${JSON.stringify(first)}`;
  if (second.counter !== first.counter + 1) return `the counter went from ${first.counter} to ${second.counter}, not up by one`;
  return undefined;
}

/** How the target's server starts: the command, and the variables that pick what it serves. */
function serverCommand(ctx: TargetContext, port: number, vars: Record<string, string>): { command: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {
    PORT: String(port),
    REDIS_URL: ctx.redis.url,
    // Whatever the harness's own environment says must not pick another store.
    VALKEY_URL: '',
    UPSTASH_REDIS_REST_URL: ctx.bridge?.url ?? '',
    UPSTASH_REDIS_REST_TOKEN: ctx.bridge?.token ?? '',
    ...vars,
  };
  const script = (name: string) => join(ROOT, 'bench/fullstack/servers', name);
  switch (ctx.target.server) {
    case 'node':
      return { command: [process.execPath, '--import', 'tsx', script('node.ts')], env: { ...env, FULLSTACK_WORKERS: String(ctx.target.workers ?? 1) } };
    case 'bun':
      return { command: [join(ROOT, 'node_modules/.bin/bun'), script('bun.ts')], env };
    case 'deno':
      return { command: [join(ROOT, 'node_modules/.bin/deno'), 'run', '--allow-all', '--no-check', script('deno.ts')], env: ctx.denoDir ? { ...env, DENO_DIR: ctx.denoDir } : env };
    case 'workerd': {
      if (!ctx.bundle) throw new Error('workerd rows need the bundled Worker');
      return {
        command: [process.execPath, '--import', 'tsx', script('workerd-host.ts')],
        env: { ...env, FULLSTACK_WORKER_SCRIPT: ctx.bundle.script, FULLSTACK_STORE: ctx.target.store === 'kv' ? 'kv' : 'upstash' },
      };
    }
  }
}

/** Starts the target's server for one row and waits until it answers. */
export async function startServer(ctx: TargetContext, vars: Record<string, string>): Promise<{ launched: Launched; base: string }> {
  const port = await freePort();
  const { command, env } = serverCommand(ctx, port, vars);
  const launched = launch({
    name: `${ctx.target.id} server`,
    command,
    env,
    cwd: ROOT,
    cpus: ctx.target.pinServer ? ctx.cfg.serverCpus : undefined,
    markers: [EXCEPTION_MARKER, STORE_ERROR_MARKER],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(launched, `${base}/health`, 120_000);
  } catch (error) {
    await launched.stop();
    throw error;
  }
  return { launched, base };
}

/** Asks `base` for {@link SANITY_QUERY}; anything but a 200 is an error carrying the answer. */
export async function getSanity(base: string): Promise<WorkResult> {
  const { status, body } = await httpRequest(base + SANITY_QUERY);
  if (status !== 200) throw new Error(`GET ${SANITY_QUERY} answered ${status}: ${body.slice(0, 300)}`);
  return JSON.parse(body) as WorkResult;
}

/** Runs one `/work` row: start, prefill, check, warm up, measure, soak, settle, stop. */
export async function runWorkRow(ctx: TargetContext, row: WorkRow): Promise<RowResult> {
  const result: RowResult = { target: ctx.target.id, kind: 'work', id: row.contender, label: row.label, status: 'ok', samples: [] };
  if (row.unavailable) return { ...result, status: 'unavailable', reason: row.unavailable };
  return withServer(ctx, result, { FULLSTACK_CONTENDER: row.contender, FULLSTACK_PAGE: 'off' }, row.expectedFailure, async (base) => {
    const prefill = await httpRequest(`${base}/prefill`, 'POST');
    if (prefill.status !== 200) throw new Error(`POST /prefill answered ${prefill.status}: ${prefill.body.slice(0, 300)}`);
    const problem = checkSanity(await getSanity(base), await getSanity(base));
    if (problem) throw new Error(`GET ${SANITY_QUERY}: ${problem}`);
    return { url: `${base}/work`, soakS: ctx.cfg.soakS };
  });
}

/** Runs one `/page/:id` row: start, prime, measure with the row's miss mix, settle, stop. */
export async function runPageRow(ctx: TargetContext, row: PageRow): Promise<RowResult> {
  const result: RowResult = { target: ctx.target.id, kind: 'page', id: `${row.page}:${row.missPercent}`, label: row.label, status: 'ok', samples: [] };
  if (row.unavailable) return { ...result, status: 'unavailable', reason: row.unavailable };
  return withServer(ctx, result, { FULLSTACK_CONTENDER: 'none', FULLSTACK_PAGE: row.page }, undefined, async (base) => {
    const first = await httpRequest(`${base}/page/1`);
    if (first.status !== 200 || !first.body.includes('"id":"1"')) throw new Error(`GET /page/1 answered ${first.status}: ${first.body.slice(0, 300)}`);
    return { url: base, soakS: ctx.cfg.measureS, pages: { keys: ctx.cfg.pageKeys, missPercent: row.missPercent } };
  });
}

interface LoadPlan {
  url: string;
  /** Seconds of load after the warm-up (≥ measureS). */
  soakS: number;
  pages?: { keys: number; missPercent: number };
}

/**
 * The part every row shares: the server starts, `prepare` checks it and says what to load,
 * then warm-up, measured window, soak, settle, with samples every second; the server is
 * stopped whatever happens and the store is emptied for the next row.
 */
async function withServer(ctx: TargetContext, result: RowResult, vars: Record<string, string>, expectedFailure: string | undefined, prepare: (base: string) => Promise<LoadPlan>): Promise<RowResult> {
  const { cfg } = ctx;
  const baselineClients = await connectedClients(ctx.monitor);
  let server: { launched: Launched; base: string } | undefined;
  let sampler: Sampler | undefined;
  try {
    server = await startServer(ctx, vars);
    const plan = await prepare(server.base);
    sampler = new Sampler({ pgid: server.launched.pgid, program: ctx.target.rssProgram, monitor: ctx.monitor, baselineClients, bridgePort: ctx.bridge?.port });
    const wrk = (durationS: number, pages = plan.pages) => runWrk({ url: plan.url, connections: cfg.connections, threads: cfg.threads, durationS, pages, cpus: cfg.loadCpus });
    sampler.start(cfg.warmupS);
    // Pages: the warm-up requests every hit id once at least, so the hit rows measure hits.
    await wrk(cfg.warmupS, plan.pages && { keys: plan.pages.keys, missPercent: 0 });
    const warm = await sampler.sample();
    const exceptionsBefore = server.launched.marked(EXCEPTION_MARKER).count;
    const storeErrorsBefore = server.launched.marked(STORE_ERROR_MARKER).count;
    const cpuBefore = groupCpuSeconds(server.launched.pgid, ctx.target.rssProgram);
    result.measure = await wrk(cfg.measureS);
    result.cpuMsPerRequest = ((groupCpuSeconds(server.launched.pgid, ctx.target.rssProgram) - cpuBefore) * 1000) / Math.max(1, result.measure.requests);
    // Every request outlasting the window is not a figure: say so rather than print 0 req/s.
    if (result.measure.requests === 0)
      throw new Error(`no request completed in the ${cfg.measureS} s measured window (wrk's timeout is 5 s): the server is slower than ${cfg.connections} connections allow`);
    if (plan.soakS > cfg.measureS) result.soak = await wrk(plan.soakS - cfg.measureS);
    const loadEnd = (await sampler.sample()).t;
    const exceptions = server.launched.marked(EXCEPTION_MARKER).count - exceptionsBefore;
    // Store errors are tallied once a second: the next tally belongs to the load too.
    await delay(1100);
    const storeErrors = server.launched.marked(STORE_ERROR_MARKER).count - storeErrorsBefore;
    // Figures of a server that died under load describe its death, not the contender.
    if (!server.launched.running()) throw new Error('the server exited during the load');
    await delay(Math.max(0, cfg.settleS * 1000 - 1100));
    const settled = await sampler.sample();
    sampler.stop();
    result.samples = [...sampler.samples, settled].sort((a, b) => a.t - b.t);
    const underLoad = result.samples.filter((s) => s.t >= 0 && s.t <= loadEnd);
    result.rss = {
      warmMiB: warm.rssMiB,
      peakMiB: Math.max(warm.rssMiB, ...underLoad.map((s) => s.rssMiB)),
      afterMiB: settled.rssMiB,
      slopePctPer10s: rssSlopePctPer10s(result.samples, 0, loadEnd, warm.rssMiB),
    };
    result.conns = {
      redisPeak: Math.max(0, ...underLoad.map((s) => s.redisClients)),
      redisSettled: settled.redisClients,
      bridgePeak: Math.max(0, ...underLoad.map((s) => s.bridgeSockets)),
      bridgeSettled: settled.bridgeSockets,
    };
    const loads = [result.measure, result.soak].filter((w): w is WrkResult => w !== undefined);
    result.errors = {
      non2xx: loads.reduce((n, w) => n + w.non2xx, 0),
      socket: loads.reduce((n, w) => n + w.socketErrors, 0),
      exceptions,
    };
    const thrown = server.launched.marked(EXCEPTION_MARKER);
    if (thrown.count > 0) result.exceptionLines = thrown.first;
    const storeTally = server.launched.marked(STORE_ERROR_MARKER);
    result.storeErrors = storeErrors;
    if (storeTally.count > 0) result.storeErrorLines = storeTally.first;
    return result;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!.slice(0, 300);
    // The server's output says why; an expected failure's first line says enough.
    if (!expectedFailure) ctx.log(`${(error as Error).message}${server ? `\n--- server output (${server.launched.running() ? 'running' : 'exited'}):\n${server.launched.outputTail()}` : ''}`);
    return { ...result, status: 'failed', reason: expectedFailure ? `${message} — ${expectedFailure}` : message, expectedFailure: expectedFailure !== undefined };
  } finally {
    sampler?.stop();
    await server?.launched.stop();
    await settleStore(ctx, baselineClients);
  }
}

/** Waits (bounded) for the stopped server's connections to close, then empties the store. */
async function settleStore(ctx: TargetContext, baselineClients: number): Promise<void> {
  for (let i = 0; i < 50 && (await connectedClients(ctx.monitor)) > baselineClients; i++) await delay(100);
  await ctx.monitor.flush();
}
