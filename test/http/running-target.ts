/** What the framework targets of the HTTP behaviour suite share: a server on loopback, and the running target over it. Runner-neutral. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PurgeTarget } from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { RunningTarget } from './http-behaviour.ts';

/** The controls a binding hands back: what the suite calls on the cache under test. */
export interface TargetControls {
  purge(target: PurgeTarget): Promise<number>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Listens with `server` on 127.0.0.1 and a free port; `stop` closes it and every connection. */
export async function listenOnLoopback(server: Server): Promise<{ base: string; stop(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The running target at `base`: the cache's controls, and `stop` for the server before the cache closes. */
export function runningAt(base: string, store: Store, controls: TargetControls, stop: () => Promise<void>): RunningTarget {
  return {
    // The store the entries live on, for scenarios that plant entries in it.
    store,
    // Redirects are the client's to see, not to follow.
    fetch: (path, init) => fetch(base + path, { redirect: 'manual', ...init }),
    purge: (target) => controls.purge(target),
    idle: () => controls.idle(),
    async close() {
      await stop();
      await controls.close();
    },
  };
}
