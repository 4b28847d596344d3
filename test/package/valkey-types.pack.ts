/**
 * Issue 33, item 3: the README's Valkey snippets type-check under strict tsc with skipLibCheck
 * off in a fresh project that has the packed tarball and no iovalkey (a URL needs none: the
 * published types of cachette/adapters/valkey import nothing from it), under nodenext and bundler.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { pageSnippets } from '../docs/markdown-snippets.ts';
import { sharedApp, type SharedApp } from './shared-apps.ts';

const root = join(import.meta.dirname, '../..');
/** The shared `bare` app (shared-apps.ts): the tarball, its own dependencies and Node's types, no iovalkey. */
let app: SharedApp;

/** Runs tsc on the app's sources with `compilerOptions`; returns its diagnostics. */
function typecheck(name: string, compilerOptions: Record<string, unknown>): string {
  const config = join(app.dir, `tsconfig.${name}.json`);
  const options = { target: 'ES2022', lib: ['ES2023', 'DOM'], strict: true, skipLibCheck: false, skipDefaultLibCheck: true, noEmit: true, types: ['node'], ...compilerOptions };
  writeFileSync(config, JSON.stringify({ compilerOptions: options, include: ['src/**/*.ts'] }));
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], { cwd: app.dir, encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim();
}

describe("the README's Valkey snippets without iovalkey", () => {
  beforeAll(async () => {
    app = await sharedApp('bare', 'valkey-types');
    const snippets = pageSnippets('README.md', readFileSync(join(root, 'README.md'), 'utf8')).filter((snippet) => snippet.source.includes("from 'cachette/adapters/valkey'"));
    assert.ok(snippets.length > 0, 'README.md has a Valkey snippet');
    mkdirSync(join(app.dir, 'src'));
    for (const snippet of snippets) writeFileSync(join(app.dir, 'src', `${snippet.slug}.ts`), `${snippet.source}\nexport {};\n`);
  }, 360_000);

  it('installs no iovalkey', () => {
    assert.equal(existsSync(join(app.root, 'node_modules', 'iovalkey')), false);
  });

  it('type-checks under moduleResolution nodenext, with skipLibCheck off', () => {
    assert.equal(typecheck('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }), '');
  }, 360_000);

  it('type-checks under moduleResolution bundler, with skipLibCheck off', () => {
    assert.equal(typecheck('bundler', { module: 'ESNext', moduleResolution: 'Bundler' }), '');
  }, 360_000);
});
