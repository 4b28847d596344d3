/**
 * Where the engine's background promises go besides `close()`'s set: a grace refresh, a
 * refresh-ahead and a fill's store write outlive the call that started them, and on Workers or
 * Vercel the platform freezes an invocation once its response has returned unless each such
 * promise is handed to its `waitUntil`.
 *
 * The per-call `waitUntil` wins, then `createCache`'s, then the platform's own: the bindings
 * that hold one (the Workers binding, the Hono middleware where `c.executionCtx` exists)
 * register it for the time they handle a request, through {@link duringRequest}, so that a
 * `getOrSet` called by the handler keeps its refresh alive with no option at all. There is no
 * async context on every runtime, so a promise goes to the request most recently begun and
 * still in flight: keeping it alive is what is needed, and any request still being handled
 * keeps the isolate running.
 */

/** Keeps a background promise alive past the response (Workers' `ctx.waitUntil`, Vercel's `waitUntil`). */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** The platform `waitUntil` of each request being handled, oldest first. */
const inFlight: WaitUntil[] = [];

/**
 * Runs `handle` with `waitUntil` registered as the platform's, for the engine's background work
 * started meanwhile (see the module comment).
 */
export async function duringRequest<T>(waitUntil: WaitUntil, handle: () => Promise<T>): Promise<T> {
  inFlight.push(waitUntil);
  try {
    return await handle();
  } finally {
    inFlight.splice(inFlight.lastIndexOf(waitUntil), 1);
  }
}

/**
 * Hands `work` to the first `waitUntil` there is: the call's, the cache's, the platform's. A
 * `waitUntil` that throws (a platform refusing it outside a request) changes nothing else: the
 * work runs on, and `close()` still waits for it.
 */
export function handOff(work: Promise<unknown>, perCall: WaitUntil | undefined, perCache: WaitUntil | undefined): void {
  const waitUntil = perCall ?? perCache ?? inFlight[inFlight.length - 1];
  if (waitUntil === undefined) return;
  try {
    waitUntil(work);
  } catch {
    // Nothing to undo: the promise was only offered for keeping alive.
  }
}
