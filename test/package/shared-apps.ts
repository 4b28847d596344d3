/**
 * The apps several package checks share: the tarball installed once per run (an install takes
 * about a minute on a busy host) with a set of peers, and each check given a directory of its own
 * inside the app, where Node, tsc, esbuild and wrangler find the app's node_modules by walking up.
 * pack-setup.ts starts the installs in the background once the tarball is packed, so the checks
 * that install what they need themselves (from-git, the lowest versions) do not wait for them.
 * A check whose verdict depends on a peer being absent uses `bare`, or an app of its own.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { installPackedAsync } from '../support/packed-package.ts';

/** What each shared app links from the checkout besides the tarball. */
export const SHARED_APPS = {
  /** Every peer the consumer's sources use, and the ecosystem entries' peers (keyv through cache-manager, unstorage 1, undici). */
  full: [
    'cbor-x',
    'fflate',
    'hono',
    '@hono/node-server',
    'iovalkey',
    '@upstash/redis',
    'express',
    '@types/express',
    'fastify',
    '@types/node',
    '@opentelemetry/api',
    'tsx',
    'keyv',
    'cache-manager',
    'unstorage',
    'undici',
  ],
  /** The package's own dependencies and Node's types: no optional peer, no store client. */
  bare: ['cbor-x', 'fflate', '@types/node'],
} as const satisfies Record<string, readonly string[]>;

/** The name of a shared app. */
export type SharedAppName = keyof typeof SHARED_APPS;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where pack-setup.ts installs the shared apps (one folder per name, and a `<name>.ready` or `<name>.failed` file once done). */
    sharedApps: string;
  }
}

/** One check's place in a shared app. */
export interface SharedApp {
  /** The app: its node_modules holds cachette and the peers. */
  root: string;
  /** A fresh directory inside it that belongs to this check alone (sources, configs, outputs). */
  dir: string;
}

const marker = (apps: string, name: SharedAppName, state: 'ready' | 'failed') => join(apps, `${name}.${state}`);

/** Installs every shared app below `apps` at once; each writes its `.ready` or `.failed` (with the error) when it ends. Resolves when all have ended. */
export async function installSharedApps(tarball: string, apps: string, root: string): Promise<void> {
  mkdirSync(apps, { recursive: true });
  await Promise.all(
    (Object.keys(SHARED_APPS) as SharedAppName[]).map((name) =>
      installPackedAsync(tarball, join(apps, name), root, SHARED_APPS[name]).then(
        () => writeFileSync(marker(apps, name, 'ready'), ''),
        (error: Error & { stderr?: string }) => writeFileSync(marker(apps, name, 'failed'), `${error.message}\n${error.stderr ?? ''}`),
      ),
    ),
  );
}

/** Waits (up to `withinMs`) until the shared app `name` is installed; returns a directory of its own inside it for `check`. */
export async function sharedApp(name: SharedAppName, check: string, withinMs = 5 * 60_000): Promise<SharedApp> {
  const apps = inject('sharedApps');
  const until = Date.now() + withinMs;
  while (!existsSync(marker(apps, name, 'ready'))) {
    if (existsSync(marker(apps, name, 'failed'))) throw new Error(`installing the shared app ${name} failed: ${readFileSync(marker(apps, name, 'failed'), 'utf8')}`);
    if (Date.now() > until) throw new Error(`the shared app ${name} was not installed within ${withinMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const root = join(apps, name);
  return { root, dir: mkdtempSync(join(root, `${check}-`)) };
}
