// What npm users read: README.md and docs/ as the tarball ships them, every relative link
// resolving to a file inside the tarball (and its anchor to a heading), and the manifest's links
// to the repository. Runs in the package step of `npm test`, on the tarball packed once.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { brokenLinks } from '../docs/markdown-links.ts';
import type { PackedTarball } from '../support/packed-package.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let work: string;
let unpacked: string;
let packed: PackedTarball;

describe('the documentation in the tarball', () => {
  beforeAll(() => {
    packed = inject('packed');
    work = mkdtempSync(join(tmpdir(), 'cachette-docs-pack-'));
    execFileSync('tar', ['-xzf', packed.path, '-C', work]);
    unpacked = join(work, 'package');
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships README.md and every page of docs/', () => {
    const files = new Set(packed.files.map((f) => f.path));
    assert.ok(files.has('README.md'));
    for (const name of readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md'))) assert.ok(files.has(`docs/${name}`), `docs/${name} is not shipped`);
  });

  it('links only to files inside the tarball, and to headings they have (the bench reports it ships included)', () => {
    const files = new Set(packed.files.map((f) => f.path));
    const pages = ['README.md', ...[...files].filter((path) => /^(docs|bench)\//.test(path) && path.endsWith('.md')).sort()];
    assert.deepEqual(brokenLinks(pages, { has: (path) => files.has(path) && existsSync(join(unpacked, path)), read: (path) => readFileSync(join(unpacked, path), 'utf8') }), []);
  });

  it('names the repository, its issues and its home page, and exports its package.json', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as {
      repository?: { url?: string };
      homepage?: string;
      bugs?: { url?: string };
      exports: Record<string, unknown>;
    };
    assert.match(manifest.repository?.url ?? '', /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    assert.match(manifest.homepage ?? '', /^https:\/\/github\.com\//);
    assert.match(manifest.bugs?.url ?? '', /^https:\/\/github\.com\/.+\/issues$/);
    assert.equal(manifest.exports['./package.json'], './package.json');
  });
});
