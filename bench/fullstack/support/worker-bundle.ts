import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './services.ts';

/**
 * The Worker's settings, used both to bundle it and to run it. nodejs_compat lets the peers
 * written for Node's TCP clients at least try to start in workerd.
 */
export const WORKER_SETTINGS = { compatibilityDate: '2026-04-01', compatibilityFlags: ['nodejs_compat'] } as const;

/** The bundled Worker: a directory holding one ES module. */
export interface WorkerBundle {
  dir: string;
  script: string;
  remove(): void;
}

/**
 * Bundles bench/fullstack/servers/worker.ts with wrangler (`deploy --dry-run --outdir`), as
 * `wrangler deploy` would for Cloudflare, once per run: every workerd row runs this bundle.
 */
export function bundleWorker(): WorkerBundle {
  const dir = mkdtempSync(join(tmpdir(), 'cachette-fullstack-worker-'));
  const config = join(dir, 'wrangler.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'cachette-fullstack',
      main: join(ROOT, 'bench/fullstack/servers/worker.ts'),
      compatibility_date: WORKER_SETTINGS.compatibilityDate,
      compatibility_flags: WORKER_SETTINGS.compatibilityFlags,
      alias: { '@node-rs/xxhash': join(ROOT, 'bench/fullstack/servers/not-installed.ts') },
    }),
  );
  const out = join(dir, 'out');
  const run = spawnSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', out, '--config', config], {
    cwd: ROOT,
    encoding: 'utf8',
    // Offline and loopback-only: no metrics, no fetch of Cloudflare's request.cf data.
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    timeout: 120_000,
  });
  const script = run.status === 0 ? readdirSync(out).find((f) => f.endsWith('.js')) : undefined;
  if (!script) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`wrangler could not bundle the Worker (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  return { dir: out, script: join(out, script), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
