/**
 * The split between the unit set and the suites that need services (scripts/test/suites.ts),
 * and how `npm test -- <filter>` narrows every runner (plan.ts). The guard that makes a misplaced
 * file fail is tested in unit-guard.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { parseTestArgs, planRun } from './plan.ts';
import { directNeeds, groupSuites, nodeTestFiles, SuiteClassifier } from './suites.ts';

const root = join(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'cachette-suites-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes `files` (repo-relative path → source) under a fresh fake repository; returns its root. */
function fakeRepo(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

describe('what a module says it needs', () => {
  it('reads the names it uses, not its comments or prose', () => {
    assert.deepEqual([...directNeeds("import { requireRedis } from '../support/redis-env.ts';\nit.runIf(requireRedis())('x', () => {});")], ['redis']);
    assert.deepEqual([...directNeeds('const url = process.env.REDIS_URL;')], ['redis']);
    assert.deepEqual([...directNeeds("describe.runIf(requireCluster())('cluster', () => {});")], ['cluster']);
    assert.deepEqual([...directNeeds('// scripts/test starts REDIS_URL and VALKEY_CLUSTER_NODES\n/* requireRedis() */ const a = 1;')], []);
    assert.deepEqual([...directNeeds("const s = 'REDIS_URL is not set'; const r = /REDIS_URL/;")], [], 'a sentence or a pattern is not a use');
  });

  it('takes a free port from redis-server.ts without needing the server', () => {
    assert.deepEqual([...directNeeds("import { freePort } from '../support/redis-server.ts';\nconst port = await freePort();")], []);
  });

  it('sees another runtime in its binary path, whole or joined', () => {
    assert.deepEqual([...directNeeds("spawn('node_modules/.bin/deno', ['run', 'x.ts']);")], ['runtime']);
    assert.deepEqual([...directNeeds("const BIN = join(root, 'node_modules/.bin');\nspawn(join(BIN, 'bun'), [file]);")], ['runtime']);
    assert.deepEqual([...directNeeds("const rows = [{ runtime: 'bun', suite: 'x' }];")], [], 'a label is not a binary');
    assert.deepEqual([...directNeeds("spawn(join(root, 'node_modules/.bin/tsx'), [file]);")], [], 'tsx runs Node');
  });
});

describe('what a test file needs, through its imports', () => {
  const repo = fakeRepo('graph', {
    'test/support/redis-env.ts': 'export const redisUrl = process.env.REDIS_URL; export function requireRedis() { return !!redisUrl; }',
    'test/support/redis-server.ts': 'export async function freePort() { return 0; } export async function startRedis() {}',
    'test/a/targets.ts': "import { requireRedis } from '../support/redis-env.ts';\nexport const targets = requireRedis() ? ['valkey'] : [];",
    'test/a/uses-targets.test.ts': "import { targets } from './targets.ts';\nexport { targets };",
    'test/a/lazy.test.ts': "const { targets } = await import('./targets.ts');",
    'test/a/port.test.ts': "import { freePort } from '../support/redis-server.ts';\nawait freePort();",
    'test/a/cycle-one.test.ts': "import './cycle-two.ts';\nexport const one = 1;",
    'test/a/cycle-two.ts': "import './cycle-one.test.ts';\nimport './targets.ts';",
    'test/a/plain.test.ts': "import { x } from '../../src/lib.ts';\nexport { x };",
    'src/lib.ts': 'export const x = process.env.REDIS_URL;',
  });
  const classifier = new SuiteClassifier(repo);

  it('follows static and dynamic imports to a helper that needs Redis', () => {
    assert.deepEqual([...classifier.needsOf('test/a/uses-targets.test.ts')], ['redis']);
    assert.deepEqual([...classifier.needsOf('test/a/lazy.test.ts')], ['redis']);
  });

  it('judges an import of a provider by the names taken from it', () => {
    assert.deepEqual([...classifier.needsOf('test/a/port.test.ts')], []);
  });

  it('settles import cycles, and never reads library code', () => {
    assert.deepEqual([...classifier.needsOf('test/a/cycle-one.test.ts')], ['redis']);
    assert.deepEqual([...classifier.needsOf('test/a/plain.test.ts')], []);
  });

  it('groups files by their needs, unit first', () => {
    const groups = groupSuites(repo, nodeTestFiles(repo));
    assert.deepEqual(
      groups.map((g) => [g.name, g.files]),
      [
        ['unit', ['test/a/plain.test.ts', 'test/a/port.test.ts']],
        ['redis', ['test/a/cycle-one.test.ts', 'test/a/lazy.test.ts', 'test/a/uses-targets.test.ts']],
      ],
    );
  });
});

describe("this repository's suites", () => {
  const groups = groupSuites(root, nodeTestFiles(root));
  const groupOf = (file: string) => groups.find((g) => g.files.includes(file))?.name;

  it('puts every Node test file in exactly one project, so npm test still runs them all', () => {
    const all = nodeTestFiles(root);
    assert.deepEqual(groups.flatMap((g) => g.files).sort(), all);
    assert.ok(all.length > 50, `${all.length} files`);
  });

  it('keeps the Valkey, cluster and other-runtime suites out of the unit set, and pure ones in it', () => {
    assert.equal(groupOf('test/cache/codec.test.ts'), 'unit');
    assert.equal(groupOf('test/contract/memory.test.ts'), 'unit');
    assert.equal(groupOf('scripts/test/suites.test.ts'), 'unit');
    assert.equal(groupOf('test/contract/valkey.test.ts'), 'redis');
    assert.equal(groupOf('test/contract/valkey-cluster.test.ts'), 'cluster');
    assert.equal(groupOf('test/adapters/sqlite-processes.test.ts'), 'runtime');
    assert.match(groupOf('test/docs/snippets.test.ts') ?? '', /redis.*runtime/);
  });
});

describe('npm test -- <filter>', () => {
  it('reads path filters and one test name pattern, and refuses anything else', () => {
    assert.deepEqual(parseTestArgs([]), { filters: [], testName: undefined });
    assert.deepEqual(parseTestArgs(['./test/cache', 'store-contract', '-t', 'expires']), { filters: ['test/cache', 'store-contract'], testName: 'expires' });
    assert.deepEqual(parseTestArgs(['--test-name-pattern=x']), { filters: [], testName: 'x' });
    assert.throws(() => parseTestArgs(['--watch']), /unknown option --watch; usage: npm test/);
    assert.throws(() => parseTestArgs(['-t']), /-t needs a pattern/);
  });

  it('gives every runner the same filter, and runs a runner only for the files it names', () => {
    const plan = planRun(root, parseTestArgs(['store-contract']));
    assert.deepEqual(plan.bun.files, ['test/runtimes/bun/store-contract.bun.ts']);
    assert.deepEqual(plan.deno.files, ['test/runtimes/deno/store-contract.deno.ts']);
    assert.deepEqual(plan.workerd.files, ['test/workers/store-contract.test.ts']);
    assert.deepEqual(plan.node.files, []);
    assert.deepEqual(plan.package.files, []);
    const codec = planRun(root, parseTestArgs(['test/cache/codec']));
    assert.deepEqual(
      Object.values(codec).map((s) => s.files),
      [['test/cache/codec.test.ts'], [], [], [], []],
    );
  });

  it('runs everything, the package check included, when nothing narrows it', () => {
    const plan = planRun(root, parseTestArgs([]));
    for (const selection of Object.values(plan)) {
      assert.equal(selection.narrowed, false);
      assert.ok(selection.files.length > 0);
    }
    assert.equal(planRun(root, parseTestArgs(['-t', 'expires'])).package.files.length, 0, 'a name pattern alone does not pack the package');
  });
});
