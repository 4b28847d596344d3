/**
 * What `npm test -- <filter> [-t <name>]` selects on each runner, and what the selected files
 * need started: one filter, the same meaning on every runner (a file is selected when its path
 * contains one of the filters, as vitest reads them), so a filter never runs Bun, Deno or workerd
 * for files it does not name, and a service starts only when a selected file needs it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NEEDS, nodeTestFiles, SuiteClassifier, type Need } from './suites.ts';

/** The runners `npm test` drives. */
export type Runner = 'node' | 'package' | 'bun' | 'deno' | 'workerd';

/** The arguments of `npm test`: path filters, and a test name pattern for every runner. */
export interface TestArgs {
  /** Substrings of repo-relative file paths; empty: every file. */
  filters: string[];
  /** `-t <pattern>`: only tests whose name matches (vitest -t, bun --test-name-pattern, deno --filter). */
  testName: string | undefined;
}

/** What one runner runs: its selected files, or all of them when nothing narrows the run. */
export interface RunnerSelection {
  /** Repo-relative paths of the selected files (empty: this runner does not run). */
  files: string[];
  /** True when a filter or a name pattern narrows the run. */
  narrowed: boolean;
  testName: string | undefined;
}

const USAGE = 'usage: npm test [-- [<path filter>…] [-t <test name pattern>]]';

/** Reads `npm test`'s arguments; anything else is an error that shows the usage. */
export function parseTestArgs(argv: readonly string[]): TestArgs {
  const filters: string[] = [];
  let testName: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-t' || arg === '--testNamePattern' || arg === '--test-name-pattern') {
      testName = argv[++i];
      if (!testName) throw new TypeError(`${arg} needs a pattern; ${USAGE}`);
    } else if (arg.startsWith('--test-name-pattern=') || arg.startsWith('--testNamePattern=')) {
      testName = arg.slice(arg.indexOf('=') + 1);
    } else if (arg.startsWith('-')) {
      throw new TypeError(`unknown option ${arg}; ${USAGE}`);
    } else {
      filters.push(arg.replace(/^\.\//, ''));
    }
  }
  return { filters, testName };
}

/** Files of `dir` (repo-relative) whose names end with `suffix`, sorted. */
function filesIn(root: string, dir: string, suffix: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix) && !name.includes('node_modules'))
    .map((name) => `${dir}/${name.split('\\').join('/')}`)
    .sort();
}

/** Every file each runner runs, repo-relative. */
export function runnerFiles(root: string): Record<Runner, string[]> {
  return {
    node: nodeTestFiles(root),
    package: filesIn(root, 'test/package', '.pack.ts'),
    bun: filesIn(root, 'test/runtimes/bun', '.bun.ts'),
    deno: filesIn(root, 'test/runtimes/deno', '.deno.ts'),
    workerd: filesIn(root, 'test/workers', '.test.ts'),
  };
}

/** What each runner runs for `args`. */
export function planRun(root: string, args: TestArgs): Record<Runner, RunnerSelection> {
  const narrowed = args.filters.length > 0 || args.testName !== undefined;
  const all = runnerFiles(root);
  const plan = {} as Record<Runner, RunnerSelection>;
  for (const runner of Object.keys(all) as Runner[]) {
    const files = args.filters.length === 0 ? all[runner] : all[runner].filter((file) => args.filters.some((filter) => file.includes(filter)));
    plan[runner] = { files, narrowed, testName: args.testName };
  }
  // A name pattern alone narrows the tests, not the release checks: the package check runs on a full run only.
  if (narrowed && args.filters.length === 0) plan.package = { files: [], narrowed, testName: args.testName };
  return plan;
}

/** The services the selected files need, across runners. */
export function neededServices(root: string, plan: Record<Runner, RunnerSelection>): Set<Need> {
  const classifier = new SuiteClassifier(root);
  const needs = new Set<Need>();
  for (const selection of Object.values(plan)) for (const file of selection.files) for (const need of classifier.needsOf(file)) needs.add(need);
  return new Set(NEEDS.filter((need) => needs.has(need)));
}
