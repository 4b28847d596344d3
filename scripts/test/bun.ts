import { runWithJunit, type RuntimeRun } from '../../test/runtimes/junit.ts';
import type { RunnerSelection } from './plan.ts';

/**
 * Runs the shared suites under `bun test` (files `test/runtimes/bun/*.bun.ts`, named so that
 * vitest never picks them up) and counts its JUnit report, one row per top-level describe.
 */
export function runBun(selection: RunnerSelection): RuntimeRun {
  // A path outside bun's default *.test.ts pattern must start with "./" to be run.
  const files = selection.files.map((file) => `./${file}`);
  const name = selection.testName === undefined ? [] : ['--test-name-pattern', selection.testName];
  return runWithJunit({
    runtime: 'bun',
    bin: 'node_modules/.bin/bun',
    args: (report) => ['test', '--timeout=20000', '--reporter=junit', `--reporter-outfile=${report}`, ...name, ...files],
    // Bun nests <testsuite> per file, then per describe: the first describe names the suite.
    suiteOf: (c) => c.suites[1] ?? c.name,
    timeoutMs: 4 * 60_000,
    mayBeEmpty: selection.testName !== undefined,
  });
}
