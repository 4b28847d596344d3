/** Counts for one suite file on one runtime. */
export interface SuiteResult {
  runtime: string;
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
  /** The tests that failed, by name (describe > … > it), with the first line of why when the runner says it. */
  failures?: FailedTest[];
}

/** One failed test, as the summary repeats it under the table. */
export interface FailedTest {
  /** The file it lives in, when the row names something else (a bun or deno suite). */
  file?: string;
  test: string;
  reason?: string;
}

/** How {@link printSummary} judges a run. */
export interface SummaryOptions {
  /** Skipped tests are problems (true unless a test name pattern left them out on purpose). */
  skipsAreProblems?: boolean;
}

/**
 * Prints the per-runtime, per-suite table, then every failed test again with its runtime, file
 * and name (a failure scrolled away among a few hundred rows and their output is found at the
 * end), then every problem in capitals, then the closing `N passed, N failed` line. Returns false
 * when anything failed, or when anything was skipped or could not run while `strict` (CI) forbids it.
 */
export function printSummary(results: SuiteResult[], problems: string[], strict: boolean, { skipsAreProblems = true }: SummaryOptions = {}): boolean {
  const rows = results.map((r) => [r.runtime, r.suite, String(r.passed), String(r.failed), String(r.skipped)]);
  const header = ['runtime', 'suite', 'passed', 'failed', 'skipped'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
  const sum = (f: (r: SuiteResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const passed = sum((r) => r.passed);
  const failed = sum((r) => r.failed);
  const skipped = sum((r) => r.skipped);
  const failedRows = results.filter((r) => r.failed > 0);
  if (failedRows.length > 0) {
    console.log(`\nFAILED (${failed}):`);
    for (const r of failedRows) {
      const named = r.failures ?? [];
      for (const f of named) console.log(`  ✗ ${r.runtime}  ${f.file ?? r.suite} > ${f.test}${f.reason ? `\n      ${f.reason}` : ''}`);
      // A file that did not load, a runner that crashed: the row is all there is to name.
      if (named.length < r.failed) console.log(`  ✗ ${r.runtime}  ${r.suite}${named.length ? ` (and ${r.failed - named.length} more)` : ''}`);
    }
  }
  if (skipsAreProblems) for (const r of results.filter((r) => r.skipped > 0)) problems.push(`${r.skipped} test(s) SKIPPED in ${r.runtime} ${r.suite}`);
  if (results.length === 0) problems.push('no test ran at all');
  if (problems.length > 0) {
    console.log('\n' + '!'.repeat(72));
    for (const p of problems) console.log(`!! NOT RUN: ${p}`);
    console.log('!'.repeat(72));
  }
  console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (failed > 0) return false;
  if (strict && problems.length > 0) {
    console.log('CI forbids skipping: failing because of the lines marked NOT RUN above.');
    return false;
  }
  return true;
}
