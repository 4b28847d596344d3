/**
 * The links of README.md and docs/ resolve where npm users read them, checked here from the
 * checkout for quick feedback (the package check, test/package/docs.pack.ts, checks the tarball
 * itself): a relative link names a file that package.json "files" ships, and its anchor a heading.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { brokenLinks, headingAnchors, linkTargets } from './markdown-links.ts';
import { documentationPages } from './markdown-snippets.ts';

const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
/** What npm ships besides "files", whatever they say. */
const ALWAYS = ['package.json', 'README.md', 'LICENSE'];

/** Whether `path` (repo-relative) would be in the tarball: a file under a shipped folder, not a test. */
function shipped(path: string): boolean {
  if (!existsSync(join(root, path)) || !statSync(join(root, path)).isFile()) return false;
  if (ALWAYS.includes(path)) return true;
  if (path.endsWith('.test.ts')) return false;
  return manifest.files.some((entry) => !entry.startsWith('!') && (path === entry || path.startsWith(`${entry}/`) || glob(entry).test(path)));
}

/** A "files" entry with `*` (any characters but `/`) as npm reads it, for the few entries that use one. */
function glob(entry: string): RegExp {
  return new RegExp(`^${entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`);
}

describe('Markdown links', () => {
  it('slug headings as GitHub and npm do', () => {
    const anchors = headingAnchors(
      '# The cache\n## getOrSet, coalescing and grace\n### `serve` and `cached`\n## Metrics and traces (`cachette/otel`)\n## Entries\n## Entries\n```md\n# not a heading\n```\n',
    );
    assert.deepEqual([...anchors], ['the-cache', 'getorset-coalescing-and-grace', 'serve-and-cached', 'metrics-and-traces-cachetteotel', 'entries', 'entries-1']);
  });

  it('follow links in prose, not in code', () => {
    assert.deepEqual(linkTargets('See [a](docs/a.md#x) and `[b](b.md)`.\n```md\n[c](c.md)\n```\n[d]: ./d.md\n'), ['docs/a.md#x', './d.md']);
  });

  it('report a link outside the tree, to a missing file, or to a missing heading', () => {
    const files: Record<string, string> = {
      'README.md': '[up](../x.md) [gone](docs/gone.md) [ok](docs/a.md#one) [bad](docs/a.md#two) [web](https://example.com/x.md) [self](#readme)',
      'docs/a.md': '# One',
    };
    const problems = brokenLinks(['README.md'], { has: (path) => path in files, read: (path) => files[path]! });
    assert.deepEqual(problems, [
      'README.md: ../x.md: points outside the package',
      'README.md: docs/gone.md: docs/gone.md is not in the package',
      'README.md: docs/a.md#two: docs/a.md has no heading #two',
      'README.md: #readme: README.md has no heading #readme',
    ]);
  });
});

describe('README.md and docs/', () => {
  it('link only to files the package ships, and to headings they have', () => {
    assert.deepEqual(brokenLinks(documentationPages(root), { has: shipped, read: (path) => readFileSync(join(root, path), 'utf8') }), []);
  });

  it('and so do the bench reports the package ships (docs/benchmarks.md links them, README shows a chart)', () => {
    const reports = manifest.files.filter((entry) => entry.startsWith('bench/') && entry.endsWith('.md'));
    assert.ok(reports.length > 0, 'package.json "files" ships the bench reports');
    assert.deepEqual(brokenLinks(reports, { has: shipped, read: (path) => readFileSync(join(root, path), 'utf8') }), []);
  });
});
