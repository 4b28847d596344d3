import type { SuiteResult } from '../../scripts/test/summary.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Reads the JUnit XML that `bun test --reporter=junit` and `deno test --junit-path` write, so
 * scripts/test counts what the runner reported instead of guessing from its exit code.
 */

/** One test case of a JUnit report. */
export interface JunitCase {
  name: string;
  /** Names of the enclosing <testsuite> elements, outermost first. */
  suites: string[];
  status: 'passed' | 'failed' | 'skipped';
}

// Elements that matter, with their attributes; quoted values may hold any character but '"'.
const TAG = /<(\/?)(testsuite|testcase|failure|error|skipped)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>/g;
const NAME = /\sname\s*=\s*"([^"]*)"/;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Every test case of `xml`, in document order. */
export function parseJunit(xml: string): JunitCase[] {
  const suites: string[] = [];
  const cases: JunitCase[] = [];
  let open: JunitCase | undefined;
  for (const [, closing, tag, attrs = '', selfClosing] of xml.matchAll(TAG)) {
    const name = unescape(NAME.exec(attrs)?.[1] ?? '');
    if (tag === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(name);
    } else if (tag === 'testcase') {
      if (closing) open = undefined;
      else {
        const current: JunitCase = { name, suites: [...suites], status: 'passed' };
        cases.push(current);
        open = selfClosing ? undefined : current;
      }
    } else if (open && !closing) {
      open.status = tag === 'skipped' ? 'skipped' : 'failed';
    }
  }
  return cases;
}

function unescape(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[\da-f]+);/gi, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ENTITIES[e]!,
  );
}

/** Per-suite counts for the summary table; `suiteOf` names the suite a case belongs to. */
export function countBySuite(cases: readonly JunitCase[], runtime: string, suiteOf: (c: JunitCase) => string): SuiteResult[] {
  const bySuite = new Map<string, SuiteResult>();
  for (const c of cases) {
    const suite = suiteOf(c);
    const row = bySuite.get(suite) ?? { runtime, suite, passed: 0, failed: 0, skipped: 0 };
    row[c.status]++;
    // The outermost <testsuite> is the file (bun, deno), the rest and the case the test's full name.
    if (c.status === 'failed') (row.failures ??= []).push({ file: c.suites[0], test: [...c.suites.slice(1), c.name].join(' > ') });
    bySuite.set(suite, row);
  }
  return [...bySuite.values()];
}

/** What one runtime's run produced: its rows, and what could not run (said loudly by printSummary). */
export interface RuntimeRun {
  results: SuiteResult[];
  problems: string[];
}

/** How to run one runtime's suites with a JUnit report. */
export interface JunitRunSpec {
  runtime: string;
  /** The runtime's binary; a missing one is a NOT RUN problem, never a silent skip. */
  bin: string;
  /** Arguments, given the path the report must be written to. */
  args(reportPath: string): string[];
  suiteOf(c: JunitCase): string;
  /** Hard limit for the whole run, so a hung runtime cannot stall `npm test`. */
  timeoutMs: number;
  /** A test name pattern narrows the run: a report without cases means nothing matched here, not a failure. */
  mayBeEmpty?: boolean;
}

/** Runs a runtime's test command and counts its JUnit report; a run that reports nothing is a failure row. */
export function runWithJunit(spec: JunitRunSpec): RuntimeRun {
  if (!existsSync(spec.bin)) return { results: [], problems: [`${spec.runtime}: ${spec.bin} is missing (npm install brings it): the ${spec.runtime} suites did not run`] };
  const dir = mkdtempSync(join(tmpdir(), `cachette-${spec.runtime}-`));
  const report = join(dir, 'junit.xml');
  try {
    const started = Date.now();
    const run = spawnSync(spec.bin, spec.args(report), { stdio: 'inherit', timeout: spec.timeoutMs, env: process.env });
    console.log(`[test] ${spec.runtime} finished in ${((Date.now() - started) / 1000).toFixed(1)} s (exit ${run.status ?? run.signal})`);
    const results = existsSync(report) ? countBySuite(parseJunit(readFileSync(report, 'utf8')), spec.runtime, spec.suiteOf) : [];
    if (results.length === 0) {
      if (spec.mayBeEmpty && existsSync(report)) return { results: [], problems: [] };
      return { results: [{ runtime: spec.runtime, suite: '(no JUnit report)', passed: 0, failed: 1, skipped: 0 }], problems: [] };
    }
    // A file that failed to load, or a timeout, can leave a report without a failing case.
    if (run.status !== 0 && results.every((r) => r.failed === 0)) results.push({ runtime: spec.runtime, suite: `(exited ${run.status ?? run.signal})`, passed: 0, failed: 1, skipped: 0 });
    return { results, problems: [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
