/**
 * docs/architecture.md stays the true map of the repository: every path it names exists, its
 * folder table names every folder of src/, adapters/ and runtimes/ (at every depth) and nothing
 * else, every section of it a file cites (by its anchor) is a heading of it, and no file cites
 * the design document that lives outside the repository.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'vitest';
import { headingAnchors } from './markdown-links.ts';

const root = join(import.meta.dirname, '../..');
const PAGE = 'docs/architecture.md';
/** The folders whose every subfolder the table must name. */
const MAPPED = ['src', 'adapters', 'runtimes', 'products'];
/** The top-level folders a path in the page may start with. */
const REPOSITORY_FOLDERS = [...MAPPED, 'test', 'scripts', 'bench', 'examples', 'docs'];
/** Files searched for citations: sources, scripts and pages. */
const TEXT = /\.(?:[cm]?[jt]sx?|md|json|toml|ya?ml|lua|sh)$/;
/** The outside design document's file name, spelled so that this file does not cite it. */
const OUTSIDE_DESIGN = ['DESIGN', 'md'].join('.');

/** The folders the page's "Folders" table has rows for, without the trailing slash. */
function tableFolders(page: string): string[] {
  const section = /^## Folders\n([\s\S]*?)(?=^## )/m.exec(page)?.[1] ?? '';
  return [...section.matchAll(/^\| `([^`]+)\/` \|/gm)].map((m) => m[1]!);
}

/** Every repository path the page names in a code span (`src/cache/engine.ts`, `runtimes/node/`). */
function namedPaths(page: string): string[] {
  const prefix = REPOSITORY_FOLDERS.join('|');
  const pattern = new RegExp(`\`((?:${prefix})/[\\w./-]*)\``, 'g');
  return [...new Set([...page.matchAll(pattern)].map((m) => m[1]!.replace(/\/$/, '')))];
}

/** Every anchor of docs/architecture.md cited in `text` (the page name, `#`, the anchor). */
function citedAnchors(text: string): string[] {
  return [...text.matchAll(/architecture\.md#([\w-]+)/g)].map((m) => m[1]!);
}

function folders(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${dir}/${entry.name}`, ...folders(`${dir}/${entry.name}`)]);
}

/** Every text file of the repository (node_modules, dist and .git left out), repository-relative. */
function repositoryFiles(dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name === '.git') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return repositoryFiles(path);
    return TEXT.test(name) ? [relative(root, path).split(sep).join('/')] : [];
  });
}

const page = readFileSync(join(root, PAGE), 'utf8');

describe('docs/architecture.md', () => {
  it('reads its table and the paths it names as written', () => {
    const probe = '## Folders\n\n| folder | holds |\n|---|---|\n| `src/` | core |\n| `src/cache/` | engine, see `src/cache/engine.ts` |\n\n## Next\n\n`bench/` and `npm test`\n';
    assert.deepEqual(tableFolders(probe), ['src', 'src/cache']);
    assert.deepEqual(namedPaths(probe), ['src', 'src/cache', 'src/cache/engine.ts', 'bench']);
    assert.deepEqual(citedAnchors('see docs/architecture.md#the-engine and (architecture.md#layers).'), ['the-engine', 'layers']);
  });

  it('names only paths that exist', () => {
    const named = namedPaths(page);
    assert.ok(named.includes('src/cache/engine.ts') && named.includes('adapters/valkey/resp'), 'the scan finds the paths of the journeys');
    assert.deepEqual(
      named.filter((path) => !existsSync(join(root, path))),
      [],
    );
  });

  it('has a row for every folder of src/, adapters/ and runtimes/, and for no other', () => {
    const rows = tableFolders(page);
    const actual = MAPPED.flatMap((top) => [top, ...folders(top)]);
    assert.ok(actual.includes('src/cache/path'), 'the walk sees nested folders');
    assert.deepEqual(
      actual.filter((folder) => !rows.includes(folder)),
      [],
      'folders missing from the table',
    );
    assert.deepEqual(
      rows.filter((folder) => !actual.includes(folder)),
      [],
      'rows for folders that are gone',
    );
  });

  it('has every section the repository cites', () => {
    const anchors = headingAnchors(page);
    const citations = repositoryFiles().flatMap((file) => citedAnchors(readFileSync(join(root, file), 'utf8')).map((anchor) => ({ file, anchor })));
    assert.ok(citations.length >= 15, `the code cites the page (${citations.length} citations found)`);
    assert.deepEqual(
      citations.filter(({ anchor }) => !anchors.has(anchor)).map(({ file, anchor }) => `${file}: #${anchor}`),
      [],
    );
  });

  it('is what the repository cites, never the design document outside it', () => {
    assert.deepEqual(
      repositoryFiles().filter((file) => readFileSync(join(root, file), 'utf8').includes(OUTSIDE_DESIGN)),
      [],
    );
  });
});
