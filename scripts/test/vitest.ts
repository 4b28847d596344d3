import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { RunnerSelection } from './plan.ts';
import type { SuiteResult } from './summary.ts';

/** What vitest's JSON reporter writes, as far as the summary reads it. */
export interface VitestJsonReport {
  testResults: Array<{ name: string; status?: string; message?: string; assertionResults: Array<{ status: string; fullName?: string; title?: string; failureMessages?: string[] }> }>;
}

/** The first line of a failure message that says something (not a blank line). */
const firstLine = (message: string | undefined) =>
  message
    ?.split('\n')
    .map((line) => line.trim())
    .find(Boolean);

/** Per-file rows of a vitest JSON report (paths relative to `root`), each failed test named with the first line of its error. */
export function resultsFromReport(report: VitestJsonReport, root: string): SuiteResult[] {
  return report.testResults.map((file) => {
    const count = (s: string[]) => file.assertionResults.filter((a) => s.includes(a.status)).length;
    const failures = file.assertionResults.filter((a) => a.status === 'failed').map((a) => ({ test: a.fullName ?? a.title ?? '(unnamed test)', reason: firstLine(a.failureMessages?.[0]) }));
    // A file whose hooks or import failed has no failed assertion, but the file failed.
    if (file.status === 'failed' && failures.length === 0) failures.push({ test: '(the file itself: a hook or an import failed)', reason: firstLine(file.message) });
    return { runtime: 'node', suite: relative(root, file.name), passed: count(['passed']), failed: failures.length, skipped: count(['skipped', 'pending', 'todo']), failures };
  });
}

/** Vitest arguments for a selection: the selected files when narrowed (as filters), and the name pattern. */
export function vitestSelection(selection: RunnerSelection): string[] {
  return [...(selection.narrowed ? selection.files : []), ...(selection.testName === undefined ? [] : ['-t', selection.testName])];
}

/** Runs `command` with this process's stdio; resolves its exit code (null when a signal or a spawn error ended it). */
function exitOf(command: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
}

/**
 * Runs the Node suites under vitest and returns per-file counts. The child runs beside this
 * process's event loop (not spawnSync), so another runner may run at the same time.
 */
export async function runVitest(args: string[]): Promise<SuiteResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cachette-vitest-'));
  const out = join(dir, 'report.json');
  try {
    const status = await exitOf('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args]);
    let report: VitestJsonReport;
    try {
      report = JSON.parse(readFileSync(out, 'utf8')) as VitestJsonReport;
    } catch {
      return [{ runtime: 'node', suite: '(vitest did not report)', passed: 0, failed: 1, skipped: 0 }];
    }
    const results = resultsFromReport(report, process.cwd());
    // A file that failed to load has no assertions but a non-zero exit: count it as a failure.
    if (status !== 0 && results.every((r) => r.failed === 0)) results.push({ runtime: 'node', suite: '(vitest exited non-zero)', passed: 0, failed: 1, skipped: 0 });
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
