import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runWithJunit, type RuntimeRun } from '../../test/runtimes/junit.ts';

const DIR = 'test/runtimes/deno';

/**
 * Runs the shared suites under `deno test` (files `test/runtimes/deno/*.deno.ts`) and counts
 * its JUnit report, one row per top-level describe. `--no-check`: `npm run typecheck` already
 * checks these files with the repo's tsconfig, and Deno's checker would read them differently.
 */
export function runDeno(): RuntimeRun {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.deno.ts'))
    .map((f) => join(DIR, f));
  return runWithJunit({
    runtime: 'deno',
    bin: 'node_modules/.bin/deno',
    args: (report) => ['test', '--allow-all', '--no-check', `--junit-path=${report}`, ...files],
    // The Deno SuiteApi names each test "describe > … > it".
    suiteOf: (c) => c.name.split(' > ')[0]!,
    timeoutMs: 4 * 60_000,
  });
}
