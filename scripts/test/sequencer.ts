import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take the longest, slowest first, as a CI run on a fresh clone measured them
 * (vitest's per-file durations): each takes minutes, so one that starts last is the run's tail.
 * A fresh clone has no vitest cache to sort by, and vitest's own order then is the glob's.
 */
export const SLOWEST = [
  // Package checks: a git install (the clone's devDependencies and build), Next's build, two drizzle apps, the consumer's type-checks.
  'test/package/from-git.pack.ts',
  'test/package/next-lowest.pack.ts',
  'test/package/drizzle.pack.ts',
  'test/package/consumer.pack.ts',
  // Node suites: every docs snippet type-checked and run, Next's builds, the full-stack servers.
  'test/docs/snippets.test.ts',
  'test/next/next.test.ts',
  'test/fullstack/servers.test.ts',
  'test/examples/bindings.test.ts',
];

/** `files` with those of {@link SLOWEST} first, in its order; the others in vitest's order after them. */
export function slowestFirst<T>(files: readonly T[], pathOf: (file: T) => string): T[] {
  const rank = (file: T) => {
    const at = SLOWEST.indexOf(pathOf(file));
    return at < 0 ? SLOWEST.length : at;
  };
  return [...files].sort((a, b) => rank(a) - rank(b));
}

/** vitest's sequencer, with the slowest files started first so they overlap the rest instead of trailing it. */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return slowestFirst(await super.sort(files), (file) => relative(file.project.config.root, file.moduleId).split('\\').join('/'));
  }
}
