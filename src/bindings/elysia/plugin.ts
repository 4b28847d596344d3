import { openHttpCache } from '../../http/exchange/http-cache.ts';
import type { HttpCacheOptions } from '../../http/exchange/options.ts';
import { controlsOf, type HttpCacheControls } from '../controls.ts';
import { Reentry } from '../reentry.ts';

/** Options of the Elysia {@link cache} plugin: the HTTP cache's own (`cachette/http`). */
export type ElysiaCacheOptions = HttpCacheOptions;

/** The part of an Elysia app the plugin uses: its `onRequest` hook, and `handle` to send a request through it. */
export interface ElysiaApp {
  handle(request: Request): Promise<Response>;
}

/** The hook the plugin registers: what Elysia's `onRequest` takes (a Response returned ends the request there). */
type RequestHook = (context: { request: Request }) => Promise<Response> | undefined;

/** The plugin returned by {@link cache}: `app.use(plugin)`, with the cache's controls. */
export interface ElysiaCachePlugin extends HttpCacheControls {
  <App extends ElysiaApp>(app: App): App;
}

/**
 * Elysia plugin: an RFC 9111 shared cache in front of every route of the app it is used on.
 *
 * ```ts
 * const responses = cache({ store: memoryStore(), ttl: '30s' });
 * const app = new Elysia().use(responses).get('/products', () => db.products());
 * await responses.purge({ tag: 'products' });
 * ```
 *
 * It runs as an `onRequest` hook, before routing, parsing and validation: the policy in
 * `cachette/http` answers the request (stored responses, 304s, HEAD and Vary as every other
 * binding serves them), and a hit ends there. Elysia hooks have no `next`, so every origin call
 * (the miss, with the cache's own validators; the stale-while-revalidate refresh; the full
 * fetch after a 304 that matches nothing stored) goes through `app.handle` as a request of its
 * own, which the hook lets through to the routes: their response, as Elysia maps it (JSON,
 * text, files, streams, errors), is the one stored. Runtime-neutral; made for Bun, where
 * Elysia runs.
 */
export function cache(options: ElysiaCacheOptions): ElysiaCachePlugin {
  // Checked once, here, where the plugin is created: never per request.
  const reentry = new Reentry(openHttpCache(options, { name: 'cache() from cachette/elysia' }));
  const plugin = <App extends ElysiaApp>(app: App): App => {
    const through = { fetch: (request: Request) => app.handle(request) };
    const hook: RequestHook = ({ request }) => {
      if (reentry.sent(request)) return undefined;
      return reentry.answer(request, { origin: (forwarded) => reentry.through(through, forwarded), app: through, waitUntil: undefined });
    };
    // Elysia's onRequest is typed by the app's own schema; the hook reads only the request.
    (app as unknown as { onRequest(hook: RequestHook): unknown }).onRequest(hook);
    return app;
  };
  return Object.assign(plugin, controlsOf(reentry.policy));
}
