/**
 * A Workers app that uses only KV, installed from the packed tarball without @upstash/redis,
 * bundled by wrangler (`deploy --dry-run`, no network). `cachette/workers` must bundle there;
 * `cachette/workers/upstash` must not (the control that proves @upstash/redis is really absent).
 * Called from consumer.pack.ts; the app is the shared `bare` one (shared-apps.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SharedApp } from './shared-apps.ts';

/** What wrangler made of one Worker: its exit status, its output, and the bundle when there is one. */
export interface WorkerBundle {
  status: number | null;
  output: string;
  bundle: string | undefined;
}

/** A KV-only Workers app in `app` (the shared `bare` app: the package's own dependencies, no store client at all); returns a bundler for worker sources. */
export function kvOnlyApp(app: SharedApp, repoModules: string): (name: string, source: string) => WorkerBundle {
  if (existsSync(join(app.root, 'node_modules', '@upstash'))) throw new Error('@upstash/redis was installed with the tarball; the KV-only app must not have it');
  mkdirSync(join(app.dir, 'src'), { recursive: true });

  return (name, source) => {
    writeFileSync(join(app.dir, 'src', `${name}.ts`), source);
    writeFileSync(
      join(app.dir, `${name}.toml`),
      [`name = "${name}"`, `main = "src/${name}.ts"`, 'compatibility_date = "2026-04-01"', '[[kv_namespaces]]', 'binding = "CACHETTE_KV"', 'id = "kv-only"'].join('\n'),
    );
    const outdir = join(app.dir, 'out', name);
    const run = spawnSync(process.execPath, [join(repoModules, 'wrangler', 'bin', 'wrangler.js'), 'deploy', '--dry-run', '--config', `${name}.toml`, '--outdir', outdir], {
      cwd: app.dir,
      encoding: 'utf8',
      timeout: 120_000,
      // Offline: no metrics, no update check, no Cloudflare `cf` object.
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_LOG: 'warn', CI: 'true' },
    });
    const file = join(outdir, `${name}.js`);
    return { status: run.status, output: `${run.stdout}${run.stderr}`, bundle: existsSync(file) ? readFileSync(file, 'utf8') : undefined };
  };
}
