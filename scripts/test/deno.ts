import { runWithJunit, type RuntimeRun } from '../../test/runtimes/junit.ts';
import type { RunnerSelection } from './plan.ts';

/**
 * Runs the shared suites under `deno test` (files `test/runtimes/deno/*.deno.ts`) and counts
 * its JUnit report, one row per top-level describe. `--no-check`: `npm run typecheck` already
 * checks these files with the repo's tsconfig, and Deno's checker would read them differently.
 */
export function runDeno(selection: RunnerSelection): RuntimeRun {
  // The Deno SuiteApi names each test "describe > … > it": --filter matches within that name.
  const name = selection.testName === undefined ? [] : ['--filter', selection.testName];
  return runWithJunit({
    runtime: 'deno',
    bin: 'node_modules/.bin/deno',
    args: (report) => ['test', '--allow-all', '--no-check', `--junit-path=${report}`, ...name, ...selection.files],
    suiteOf: (c) => c.name.split(' > ')[0]!,
    timeoutMs: 4 * 60_000,
    mayBeEmpty: selection.testName !== undefined,
  });
}
