// The package as a user gets it: `npm pack`, installed into a fresh consumer project, then
// type-checked under moduleResolution nodenext and bundler, run on Node, and inspected for
// what it ships (source maps that resolve, a LICENSE, no tests); the Node servers' entry points
// (cachette/node/proxy, cachette/node/bridge) are type-checked with the rest. A third-party store
// runs the shipped contract suite (cachette/store/testing), and a Node app bundled with esbuild
// keeps the native install (package.json sideEffects). Runs in its own step of
// `npm test` (scripts/test/package.ts), after the other Node suites: it builds and compiles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, inject, it } from 'vitest';
import type { PackedTarball } from '../support/packed-package.ts';
import { kvOnlyApp } from './kv-worker.ts';
import { sharedApp, type SharedApp } from './shared-apps.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./consumer', import.meta.url));
const repoModules = join(root, 'node_modules');
// The consumer is the shared `full` app (shared-apps.ts): the tarball with the peers and types its sources use, linked from this checkout so no network is needed.
let app: SharedApp;
let consumer: string;
let installed: string;
let packed: PackedTarball;

/** Every file below `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => statSync(join(dir, file)).isFile());
}

/** Runs tsc on the consumer with `compilerOptions`; returns its diagnostics. */
function typecheck(name: string, compilerOptions: Record<string, unknown>): string {
  const config = join(consumer, `tsconfig.${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      // TypeScript's own lib files need no checking, and skipping them halves the time.
      compilerOptions: { target: 'ES2022', lib: ['ES2023', 'DOM', 'DOM.Iterable'], strict: true, skipDefaultLibCheck: true, noEmit: true, types: ['node'], ...compilerOptions },
      include: ['src/**/*.ts'],
    }),
  );
  const run = spawnSync(process.execPath, [join(repoModules, 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], { cwd: consumer, encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim();
}

describe('the packed package in a consumer project', () => {
  beforeAll(async () => {
    // Built from the sources as they are now, in a scratch copy: the checkout's dist/ plays no part.
    packed = inject('packed');
    app = await sharedApp('full', 'consumer');
    consumer = app.dir;
    installed = join(app.root, 'node_modules', 'cachette');
    cpSync(fixtures, join(consumer, 'src'), { recursive: true });
  }, 360_000);

  it('was installed from the tarball, not linked to this checkout', () => {
    assert.ok(existsSync(join(installed, 'package.json')));
    assert.equal(statSync(installed).isDirectory() && !readdirSync(join(app.root, 'node_modules')).includes('cachette/'), true);
    assert.notEqual(resolve(installed), resolve(root));
  });

  // With skipLibCheck off, errors inside the published declarations show (TS2709 did, under
  // nodenext); the consumer's own assertions (IsAny on the Valkey client) catch what
  // skipLibCheck would hide, so the second configuration may skip them and stay quick.
  it('type-checks under moduleResolution nodenext, with skipLibCheck off', () => {
    assert.equal(typecheck('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: false }), '');
  }, 360_000);

  it('type-checks under moduleResolution bundler', () => {
    assert.equal(typecheck('bundler', { module: 'ESNext', moduleResolution: 'Bundler', skipLibCheck: true }), '');
  }, 360_000);

  it('runs on Node from the installed package, and exits by itself', () => {
    const run = spawnSync(process.execPath, [join(consumer, 'src', 'smoke.mjs')], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.signal, null, `killed: it did not exit within 60 s\n${run.stdout}${run.stderr}`);
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /smoke ok/);
  }, 90_000);

  it('runs a third-party store through the shipped contract suite, under node:test', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test-reporter=tap', join(consumer, 'src', 'third-party-store.ts')], { cwd: consumer, encoding: 'utf8', timeout: 120_000 });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(run.stdout, /^# fail 0$/m, output);
    // The contract's own tests and the store's additional one ran, not an empty suite.
    assert.ok(Number(/^# pass (\d+)$/m.exec(run.stdout)?.[1]) >= 20, output);
    assert.match(run.stdout, /runs its own tests inside the suite/);
  }, 150_000);

  it('keeps node:zlib as the default compressor when a Node app is bundled (sideEffects lists the install)', () => {
    writeFileSync(
      join(consumer, 'bundled.mjs'),
      "import { createCache } from 'cachette';\nimport { memoryStore } from 'cachette/adapters/memory';\nconst cache = createCache({ store: memoryStore(), compression: { threshold: 1 } });\nawait cache.set('k', 'x'.repeat(1000));\nif ((await cache.get('k')).length !== 1000) throw new Error('round trip');\nawait cache.close();\nconsole.log('bundled ok');\n",
    );
    const bundle = spawnSync(join(repoModules, '.bin', 'esbuild'), ['bundled.mjs', '--bundle', '--platform=node', '--format=esm', '--outfile=out/bundled.mjs', '--log-level=error'], {
      cwd: consumer,
      encoding: 'utf8',
    });
    assert.equal(bundle.status, 0, `${bundle.stdout}${bundle.stderr}`);
    const code = readFileSync(join(consumer, 'out', 'bundled.mjs'), 'utf8');
    // With "sideEffects": false the bundler dropped runtimes/native/install.js: no zlib, fflate by default.
    assert.match(code, /installPlatformDeflate\d*\(\(level\d*\) => zlibCompressor\d*\(/);
    assert.match(code, /from "(node:)?zlib"/);
    const run = spawnSync(process.execPath, [join(consumer, 'out', 'bundled.mjs')], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /bundled ok/);
  }, 120_000);

  it('ships its sources with maps that resolve to them, and nothing else of the repository', () => {
    const files = filesUnder(installed);
    const maps = files.filter((file) => file.endsWith('.map'));
    assert.ok(maps.length > 0, 'source maps are shipped');
    const mapped = new Set<string>();
    for (const map of maps) {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(join(installed, map), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const target = resolve(installed, dirname(map), sourceRoot, source);
        assert.ok(target.startsWith(installed + sep), `${map} points outside the package: ${source}`);
        assert.ok(existsSync(target), `${map} points at ${relative(installed, target)}, which is not shipped`);
        mapped.add(relative(installed, target));
      }
    }
    const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    assert.deepEqual(
      sources.filter((file) => !mapped.has(file)),
      [],
      'every shipped source is one a map points at',
    );
    assert.deepEqual(
      // Of bench/, only the reports and their charts (docs/benchmarks.md and README link them), never its code or raw results.
      files.filter((file) => /(^|[/\\])test[/\\]|\.test\.ts$|^bench[/\\](?!.*\.(md|svg)$)|^examples|^scripts/.test(file)),
      [],
    );
  });

  it('bundles a KV-only Worker with wrangler without @upstash/redis installed (cachette/workers/upstash needs it)', async () => {
    const bundle = kvOnlyApp(await sharedApp('bare', 'kv-worker'), repoModules);
    const worker = "import { withCache } from 'cachette/workers';\nexport default withCache(() => new Response('hi', { headers: { 'cache-control': 's-maxage=30' } }));\n";
    const kv = bundle('kv', worker);
    assert.equal(kv.status, 0, kv.output);
    assert.match(kv.bundle ?? '', /withCache/);
    // Neither the store nor the SDK (its error class) made it in; the refusal message names the package, so match code, not text.
    assert.doesNotMatch(kv.bundle ?? '', /class UpstashStore|UpstashError|@upstash\/redis\/cloudflare/);
    const upstash = bundle('upstash', worker.replace("'cachette/workers'", "'cachette/workers/upstash'"));
    assert.notEqual(upstash.status, 0, 'the Upstash entry bundled although @upstash/redis is not installed');
    assert.match(upstash.output, /Could not resolve "@upstash\/redis\/cloudflare"/);
  }, 240_000);

  it('ships a LICENSE that matches package.json', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { license: string };
    assert.equal(manifest.license, 'MIT');
    assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} /);
  });

  it('stays small: the tarball size is reported, and bounded', () => {
    console.info(`[pack] ${packed.filename}: ${packed.files.length} files, ${(packed.size / 1024).toFixed(1)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked`);
    // The bound catches what must never ship (tests, benches' code and results, node_modules:
    // megabytes), not growth of the library itself: ~1.1 MiB with the docs pages, the bench
    // reports and their charts (~35 KiB), the stores' own RESP, the cluster store, tags and L1,
    // otel and the shipped contract suite, about a third of it the TypeScript sources the source
    // maps point at.
    assert.ok(packed.size < 1.5 * 1024 * 1024, `${packed.size} bytes`);
  });
});
