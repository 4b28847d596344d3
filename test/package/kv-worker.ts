/**
 * A Workers app that uses only KV, installed from the packed tarball without @upstash/redis,
 * bundled by wrangler (`deploy --dry-run`, no network). `cachette/workers` must bundle there;
 * `cachette/workers/upstash` must not (the control that proves @upstash/redis is really absent).
 * Called from consumer.pack.ts, which packs the tarball once for every package check.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What wrangler made of one Worker: its exit status, its output, and the bundle when there is one. */
export interface WorkerBundle {
  status: number | null;
  output: string;
  bundle: string | undefined;
}

/** Installs a KV-only Workers app from `tarball` under `work`; returns a bundler for worker sources. */
export function kvOnlyApp(tarball: string, work: string, repoModules: string): (name: string, source: string) => WorkerBundle {
  const app = join(work, 'kv-worker');
  mkdirSync(join(app, 'src'), { recursive: true });
  // The package's own dependencies, linked from this checkout (no network); no store client at all.
  const dependencies: Record<string, string> = { cachette: `file:${tarball}` };
  for (const name of ['cbor-x', 'fflate']) dependencies[name] = `file:${join(repoModules, name)}`;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'kv-worker', private: true, type: 'module', dependencies }));
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: app, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm install failed:\n${install.stdout}${install.stderr}`);
  if (existsSync(join(app, 'node_modules', '@upstash'))) throw new Error('@upstash/redis was installed with the tarball; the KV-only app must not have it');

  return (name, source) => {
    writeFileSync(join(app, 'src', `${name}.ts`), source);
    writeFileSync(
      join(app, `${name}.toml`),
      [`name = "${name}"`, `main = "src/${name}.ts"`, 'compatibility_date = "2026-04-01"', '[[kv_namespaces]]', 'binding = "CACHETTE_KV"', 'id = "kv-only"'].join('\n'),
    );
    const outdir = join(app, 'out', name);
    const run = spawnSync(process.execPath, [join(repoModules, 'wrangler', 'bin', 'wrangler.js'), 'deploy', '--dry-run', '--config', `${name}.toml`, '--outdir', outdir], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
      // Offline: no metrics, no update check, no Cloudflare `cf` object.
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_LOG: 'warn', CI: 'true' },
    });
    const file = join(outdir, `${name}.js`);
    return { status: run.status, output: `${run.stdout}${run.stderr}`, bundle: existsSync(file) ? readFileSync(file, 'utf8') : undefined };
  };
}
