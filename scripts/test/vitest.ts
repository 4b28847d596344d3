import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { RunnerSelection } from './plan.ts';
import type { SuiteResult } from './summary.ts';

interface JsonReport {
  testResults: Array<{ name: string; assertionResults: Array<{ status: string }> }>;
}

/** Vitest arguments for a selection: the selected files when narrowed (as filters), and the name pattern. */
export function vitestSelection(selection: RunnerSelection): string[] {
  return [...(selection.narrowed ? selection.files : []), ...(selection.testName === undefined ? [] : ['-t', selection.testName])];
}

/** Runs the Node suites under vitest and returns per-file counts. */
export async function runVitest(args: string[]): Promise<SuiteResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cachette-vitest-'));
  const out = join(dir, 'report.json');
  try {
    const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args], { stdio: 'inherit' });
    let report: JsonReport;
    try {
      report = JSON.parse(readFileSync(out, 'utf8')) as JsonReport;
    } catch {
      return [{ runtime: 'node', suite: '(vitest did not report)', passed: 0, failed: 1, skipped: 0 }];
    }
    const results = report.testResults.map((file) => {
      const count = (s: string[]) => file.assertionResults.filter((a) => s.includes(a.status)).length;
      return {
        runtime: 'node',
        suite: relative(process.cwd(), file.name),
        passed: count(['passed']),
        failed: count(['failed']),
        skipped: count(['skipped', 'pending', 'todo']),
      };
    });
    // A file that failed to load has no assertions but a non-zero exit: count it as a failure.
    if (run.status !== 0 && results.every((r) => r.failed === 0)) results.push({ runtime: 'node', suite: '(vitest exited non-zero)', passed: 0, failed: 1, skipped: 0 });
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
