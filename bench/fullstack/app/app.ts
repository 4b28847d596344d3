/**
 * The one Hono app every runtime serves (Node, Bun, Deno, workerd). Runtime-neutral: what
 * differs per runtime is how the contender and the page cache are opened, not the routes.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { cache as honoCache } from 'hono/cache';
import { cache as cachetteHono } from '../../../src/bindings/hono/index.ts';
import type { Store } from '../../../src/store/types.ts';
import type { Contender } from '../../contenders/types.ts';
import { doWork, paramsFromQuery, prefill, workKeys } from './workload.ts';

/** How `/page/:id` is cached. */
export type PageCache =
  | { kind: 'none' }
  /** cachette/hono over `store` under `namespace`; `batch: false` on workerd, as cachette/workers does. */
  | { kind: 'cachette'; store: Store; namespace: string; batch?: boolean }
  /**
   * hono/cache over the platform's Cache API (workerd, Deno). `wait`: finish the put before
   * answering, which Deno needs (hono's docs say so); workerd puts in waitUntil.
   */
  | { kind: 'hono-cache'; wait: boolean; cacheName: string };

/** What a runtime's server hands the app. */
export interface FullstackAppOptions {
  /** The library under test on `/work`; absent when the server only serves pages. */
  contender?: Contender;
  /** The cache in front of `/page/:id`; absent leaves the route out. */
  page?: PageCache;
  /** Prefix of the `/work` keys (default "fs"): each server of a run keeps to its own keys. */
  keyPrefix?: string;
}

/** Marks a server-side exception on stderr; the harness counts these lines. */
export const EXCEPTION_MARKER = '[fullstack-exception]';

/**
 * Marks store failures cachette reported as `error` events (a timeout, a refused command):
 * the cache served a miss or skipped a write instead of failing, so these are not
 * exceptions, but they explain the misses and the failed writes that follow.
 */
export const STORE_ERROR_MARKER = '[fullstack-store-error]';

/**
 * The Cache API cache hono/cache stores a server's pages in: one per namespace, since the
 * servers of a Deno run share one DENO_DIR, where Deno keeps its Cache API on disk.
 */
export const honoCacheName = (namespace: string): string => `${namespace}-page`;

/** The origin's answer time: what a page cache saves. */
export const ORIGIN_DELAY_MS = 20;

const PAGE_ITEMS = Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}`, price: 100 + i }));

/** Prints an exception with the marker; every runtime routes console.error to its stderr. */
export function reportException(error: unknown): void {
  console.error(EXCEPTION_MARKER, error instanceof Error ? (error.stack ?? error.message) : String(error));
}

/** What cachette's `error` event carries. */
interface StoreErrorDetail {
  operation: string;
  error: unknown;
}

/**
 * Reports cachette's store errors on stderr as `MARKER ×N first-message`. With `everyMs`,
 * errors are tallied and printed once per period, so a burst of thousands costs a line, not
 * thousands of writes on the server under test; without it (workerd, where timers run only
 * inside a request), each is printed at once.
 */
export function storeErrorReporter(everyMs?: number): (detail: StoreErrorDetail) => void {
  const describe = (d: StoreErrorDetail) => `${d.operation}: ${d.error instanceof Error ? `${d.error.name}: ${d.error.message}` : String(d.error)}`;
  if (everyMs === undefined) return (d) => console.error(STORE_ERROR_MARKER, `×1 ${describe(d)}`);
  let count = 0;
  let first = '';
  const timer = setInterval(() => {
    if (count === 0) return;
    console.error(`${STORE_ERROR_MARKER} ×${count} ${first}`);
    count = 0;
  }, everyMs);
  // Never what keeps a server process alive.
  (timer as { unref?: () => void }).unref?.();
  return (d) => {
    if (count++ === 0) first = describe(d);
  };
}

/**
 * `GET /health`, `POST /prefill` and `GET /work` over the contender; `GET /page/:id` behind the
 * page cache: a 20 ms origin answering `public, max-age=3600`.
 */
export function fullstackApp(options: FullstackAppOptions): Hono {
  const app = new Hono();
  app.onError((error, c) => {
    reportException(error);
    return c.text(`error: ${error.message}`, 500);
  });
  app.get('/health', (c) => c.text('ok'));

  const contender = options.contender;
  if (contender) {
    const keys = workKeys(options.keyPrefix ?? 'fs');
    app.post('/prefill', async (c) => c.json({ stored: await prefill(contender, keys) }));
    app.get('/work', async (c) => {
      let params;
      try {
        params = paramsFromQuery(new URL(c.req.url).searchParams);
      } catch (error) {
        return c.text((error as Error).message, 400);
      }
      return c.json(await doWork(contender, params, keys));
    });
  }

  if (options.page) {
    const middleware = pageMiddleware(options.page, app);
    if (middleware) app.use('/page/*', middleware);
    app.get('/page/:id', async (c) => {
      await new Promise((resolve) => setTimeout(resolve, ORIGIN_DELAY_MS));
      return c.json({ id: c.req.param('id'), items: PAGE_ITEMS }, 200, { 'cache-control': 'public, max-age=3600' });
    });
  }
  return app;
}

function pageMiddleware(page: PageCache, app: Hono): MiddlewareHandler | undefined {
  switch (page.kind) {
    case 'none':
      return undefined;
    case 'cachette':
      return cachetteHono({ store: page.store, app, namespace: page.namespace, ...(page.batch === undefined ? {} : { batch: page.batch }) });
    case 'hono-cache':
      return honoCache({ cacheName: page.cacheName, wait: page.wait });
  }
}
