/**
 * `npm run test:unit [-- <path filter>… -t <name>]`: the inner loop. Every Node suite that needs
 * no server and no other runtime (vitest's `unit` project, scripts/test/suites.ts), four files at
 * a time (most of them wait on timers and loopback sockets, not on the CPU), nothing started.
 * A skipped test fails the run, as under CI: a unit test has nothing to wait for.
 */
import { parseTestArgs } from './plan.ts';
import { printSummary } from './summary.ts';
import { runVitest } from './vitest.ts';

let args: ReturnType<typeof parseTestArgs>;
try {
  args = parseTestArgs(process.argv.slice(2));
} catch (error) {
  console.error(`[test:unit] ${(error as Error).message}`);
  process.exit(2);
}
const started = Date.now();
const results = await runVitest(['--project', 'unit', '--maxWorkers=4', '--passWithNoTests', ...(args.testName === undefined ? [] : ['-t', args.testName]), ...args.filters]);
const ok = printSummary(results, [], true, { skipsAreProblems: args.testName === undefined });
console.log(`[test:unit] ${results.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(ok ? 0 : 1);
