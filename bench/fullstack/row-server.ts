import { join } from 'node:path';
import { freePort } from '../../test/support/redis-server.ts';
import type { ServerMonitor } from '../support/server.ts';
import { EXCEPTION_MARKER, STORE_ERROR_MARKER } from './app/app.ts';
import type { WorkResult } from './app/workload.ts';
import type { FullstackConfig } from './config.ts';
import type { PageRow, Target, WorkRow } from './plan.ts';
import { httpRequest } from './support/http.ts';
import { launch, waitForHttp, type Launched } from './support/launch.ts';
import { ROOT, type Service } from './support/services.ts';
import type { WorkerBundle } from './support/worker-bundle.ts';

/**
 * One row's server: how it starts for its target, and the checks it must pass before it is
 * measured (prefill, a fixed request answered right twice, the first page served).
 */

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

/** What a started row loads: `/work`, or `/page/:id` with a miss mix. */
export interface LoadPlan {
  url: string;
  pages?: { keys: number; missPercent: number };
}

/** A row as the target runs it: work or page. */
export type PlannedRow = { kind: 'work'; row: WorkRow } | { kind: 'page'; row: PageRow };

/** The id a row has in results and in `--contender`: the contender, or `page-kind:miss%`. */
export function rowId(planned: PlannedRow): string {
  return planned.kind === 'work' ? planned.row.contender : `${planned.row.page}:${planned.row.missPercent}`;
}

/** The variables that pick what a row's server serves; each row keeps to keys of its own. */
function rowVariables(planned: PlannedRow): Record<string, string> {
  const namespace = `fs-${rowId(planned).replace(/[^a-z0-9-]/gi, '-')}`;
  return planned.kind === 'work'
    ? { FULLSTACK_CONTENDER: planned.row.contender, FULLSTACK_PAGE: 'off', FULLSTACK_NAMESPACE: namespace }
    : { FULLSTACK_CONTENDER: 'none', FULLSTACK_PAGE: planned.row.page, FULLSTACK_NAMESPACE: namespace };
}

/**
 * Starts a row's server and checks it: `/work` rows are prefilled and must answer the sanity
 * request right twice; page rows must serve their first page. Returns what to load; a server
 * that fails a check is stopped before the error is thrown.
 */
export async function openRow(ctx: TargetContext, planned: PlannedRow): Promise<{ launched: Launched; plan: LoadPlan }> {
  const { launched, base } = await startServer(ctx, rowVariables(planned));
  try {
    if (planned.kind === 'work') {
      const prefill = await httpRequest(`${base}/prefill`, 'POST');
      if (prefill.status !== 200) throw new Error(`POST /prefill answered ${prefill.status}: ${prefill.body.slice(0, 300)}`);
      const problem = checkSanity(await getSanity(base), await getSanity(base));
      if (problem) throw new Error(`GET ${SANITY_QUERY}: ${problem}`);
      return { launched, plan: { url: `${base}/work` } };
    }
    const first = await httpRequest(`${base}/page/1`);
    if (first.status !== 200 || !first.body.includes('"id":"1"')) throw new Error(`GET /page/1 answered ${first.status}: ${first.body.slice(0, 300)}`);
    return { launched, plan: { url: base, pages: { keys: ctx.cfg.pageKeys, missPercent: planned.row.missPercent } } };
  } catch (error) {
    const tail = launched.outputTail();
    await launched.stop();
    throw Object.assign(error as Error, { serverOutput: tail });
  }
}
