/**
 * Issue 33, item 3: the README's Valkey snippets type-check under strict tsc with skipLibCheck
 * off in a fresh project that has the packed tarball and no iovalkey (a URL needs none: the
 * published types of cachette/adapters/valkey import nothing from it), under nodenext and bundler.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { pageSnippets } from '../docs/markdown-snippets.ts';
import { installPacked } from '../support/packed-package.ts';

const root = join(import.meta.dirname, '../..');
let work: string;
let app: string;

/** Runs tsc on the app's sources with `compilerOptions`; returns its diagnostics. */
function typecheck(name: string, compilerOptions: Record<string, unknown>): string {
  const config = join(app, `tsconfig.${name}.json`);
  const options = { target: 'ES2022', lib: ['ES2023', 'DOM'], strict: true, skipLibCheck: false, skipDefaultLibCheck: true, noEmit: true, types: ['node'], ...compilerOptions };
  writeFileSync(config, JSON.stringify({ compilerOptions: options, include: ['src/**/*.ts'] }));
  const run = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--pretty', 'false'], { cwd: app, encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim();
}

describe("the README's Valkey snippets without iovalkey", () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'cachette-valkey-types-'));
    app = join(work, 'app');
    installPacked(inject('packed').path, app, root, ['cbor-x', 'fflate', '@types/node']);
    const snippets = pageSnippets('README.md', readFileSync(join(root, 'README.md'), 'utf8')).filter((snippet) => snippet.source.includes("from 'cachette/adapters/valkey'"));
    assert.ok(snippets.length > 0, 'README.md has a Valkey snippet');
    mkdirSync(join(app, 'src'));
    for (const snippet of snippets) writeFileSync(join(app, 'src', `${snippet.slug}.ts`), `${snippet.source}\nexport {};\n`);
  }, 240_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs no iovalkey', () => {
    assert.equal(existsSync(join(app, 'node_modules', 'iovalkey')), false);
  });

  it('type-checks under moduleResolution nodenext, with skipLibCheck off', () => {
    assert.equal(typecheck('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }), '');
  }, 120_000);

  it('type-checks under moduleResolution bundler, with skipLibCheck off', () => {
    assert.equal(typecheck('bundler', { module: 'ESNext', moduleResolution: 'Bundler' }), '');
  }, 120_000);
});
