/**
 * The `node:http` side of `serve` and `requestListener`: `@hono/node-server` translates
 * IncomingMessage/ServerResponse to fetch's Request/Response. It is an optional peer, imported
 * only here and only when a server is asked for, so that `cachette/node` loads without it (an
 * Express app takes `storeFromEnv` from it and has no use for Hono's server).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { importPeer, loadPeer } from '../../src/util/optional-peer.ts';

type FetchCallback = (request: Request, env?: unknown) => Promise<Response>;

/** `@hono/node-server`, imported once (the ESM build, the instance an app's own import gets). */
let nodeServer: Promise<typeof import('@hono/node-server')> | undefined;

function importNodeServer(needer: string): Promise<typeof import('@hono/node-server')> {
  nodeServer ??= importPeer(needer, '@hono/node-server', () => import('@hono/node-server'));
  // A failed import is not remembered: installing the package and calling again works.
  nodeServer.catch(() => (nodeServer = undefined));
  return nodeServer;
}

/** The listener for `fetch`; rejects with a MissingPeerError naming `needer` when `@hono/node-server` is not installed. */
export async function loadNodeListener(fetch: FetchCallback, needer: string): Promise<RequestListener> {
  return (await importNodeServer(needer)).getRequestListener(fetch);
}

/**
 * The listener for `fetch`, returned at once: requests that arrive while `@hono/node-server`
 * loads wait for it, later ones go straight through. A package that is not installed is thrown
 * here (it does not resolve); one that resolves and still fails to load answers every request
 * with a 500, the error logged once.
 */
export function nodeListener(fetch: FetchCallback, needer: string): RequestListener {
  loadPeer(needer, '@hono/node-server', () => import.meta.resolve('@hono/node-server'));
  let ready: RequestListener | undefined;
  const loading = loadNodeListener(fetch, needer).then((listener) => (ready = listener));
  let failure: unknown;
  loading.catch((error: unknown) => {
    failure = error;
    console.error(error);
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (ready) return ready(req, res);
    if (failure !== undefined) return answer500(res);
    loading.then(
      (listener) => listener(req, res),
      () => answer500(res),
    );
  };
}

function answer500(res: ServerResponse): void {
  res.statusCode = 500;
  res.end('Internal Server Error');
}
