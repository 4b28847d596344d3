/**
 * `npm test`'s closing summary (issue 33, item 11): under a table of a few hundred rows, every
 * failed test is repeated with its runtime, file and name, and why, so that a person finds what
 * failed without scrolling through the run. The names come from vitest's JSON report and from the
 * JUnit reports of bun and deno.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it, vi } from 'vitest';
import { countBySuite, parseJunit } from '../../test/runtimes/junit.ts';
import { printSummary, type SuiteResult } from './summary.ts';
import { resultsFromReport } from './vitest.ts';

/** What printSummary writes, line by line. */
function printed(results: SuiteResult[]): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void lines.push(...parts.join(' ').split('\n')));
  try {
    return { ok: printSummary(results, [], false), lines };
  } finally {
    log.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('the summary of npm test', () => {
  it('repeats each failed test under the table, with its runtime, file, name and reason, before the totals', () => {
    const rows: SuiteResult[] = [
      ...Array.from({ length: 180 }, (_, i) => ({ runtime: 'node', suite: `test/a/file-${i}.test.ts`, passed: 3, failed: 0, skipped: 0 })),
      { runtime: 'node', suite: 'test/cache/api.test.ts', passed: 20, failed: 1, skipped: 0, failures: [{ test: 'cache API > get > misses', reason: 'AssertionError: expected 1 to be 2' }] },
      { runtime: 'bun', suite: 'store contract', passed: 40, failed: 1, skipped: 0, failures: [{ file: './a.bun.ts', test: 'store contract > memory > keeps bytes' }] },
      { runtime: 'node', suite: '(vitest exited non-zero)', passed: 0, failed: 1, skipped: 0 },
    ];
    const { lines, ok } = printed(rows);
    assert.equal(ok, false);
    const table = lines.findIndex((line) => line.includes('test/a/file-179.test.ts'));
    const failed = lines.indexOf('FAILED (3):');
    const totals = lines.findIndex((line) => /^\d+ passed, \d+ failed, \d+ skipped$/.test(line));
    assert.ok(table >= 0 && table < failed && failed < totals, lines.join('\n'));
    assert.deepEqual(lines.slice(failed + 1, failed + 5), [
      '  ✗ node  test/cache/api.test.ts > cache API > get > misses',
      '      AssertionError: expected 1 to be 2',
      '  ✗ bun  ./a.bun.ts > store contract > memory > keeps bytes',
      '  ✗ node  (vitest exited non-zero)',
    ]);
  });

  it('prints no failure list when nothing failed', () => {
    const { lines, ok } = printed([{ runtime: 'node', suite: 'test/a.test.ts', passed: 2, failed: 0, skipped: 0 }]);
    assert.equal(ok, true);
    assert.ok(!lines.some((line) => line.startsWith('FAILED')), lines.join('\n'));
  });

  it("names vitest's failed tests and failed files from its JSON report", () => {
    const rows = resultsFromReport(
      {
        testResults: [
          {
            name: '/repo/test/cache/api.test.ts',
            status: 'failed',
            assertionResults: [
              { status: 'passed', fullName: 'cache API > get > hits' },
              { status: 'failed', fullName: 'cache API > get > misses', failureMessages: ['\nAssertionError: expected 1 to be 2\n    at x (y.ts:1:1)'] },
            ],
          },
          { name: '/repo/test/cache/broken.test.ts', status: 'failed', message: 'Hook timed out in 20000ms.\nmore', assertionResults: [] },
        ],
      },
      '/repo',
    );
    assert.deepEqual(rows, [
      { runtime: 'node', suite: 'test/cache/api.test.ts', passed: 1, failed: 1, skipped: 0, failures: [{ test: 'cache API > get > misses', reason: 'AssertionError: expected 1 to be 2' }] },
      {
        runtime: 'node',
        suite: 'test/cache/broken.test.ts',
        passed: 0,
        failed: 1,
        skipped: 0,
        failures: [{ test: '(the file itself: a hook or an import failed)', reason: 'Hook timed out in 20000ms.' }],
      },
    ]);
  });

  it('names the failed cases of a JUnit report (bun, deno)', () => {
    const xml =
      '<testsuites><testsuite name="test/runtimes/bun/store-contract.bun.ts"><testsuite name="store contract"><testsuite name="memory">' +
      '<testcase name="keeps bytes"><failure message="x"/></testcase><testcase name="counts"/></testsuite></testsuite></testsuite></testsuites>';
    const rows = countBySuite(parseJunit(xml), 'bun', (c) => c.suites[1] ?? c.name);
    assert.deepEqual(rows, [
      { runtime: 'bun', suite: 'store contract', passed: 1, failed: 1, skipped: 0, failures: [{ file: 'test/runtimes/bun/store-contract.bun.ts', test: 'store contract > memory > keeps bytes' }] },
    ]);
  });
});
