/**
 * What every bench page and chart says about the run it shows: the command, date, commit and
 * load (the stamp each chart carries in its footer), a warning at the top of a page measured on a
 * tree with uncommitted changes, and links to what the package does not ship. The pages and
 * their charts ship in the npm package (package.json "files") and link each other relatively;
 * the bench's sources and raw JSON stay in the repository, so those links name the repository at
 * the commit measured, where they resolve for anyone.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/** Which run a page or a chart shows: a chart's footer prints it, so a chart copied away still says where it comes from. */
export interface RunStamp {
  /** The command that measured it, e.g. "npm run bench:fullstack". */
  command: string;
  /** ISO date of the run. */
  date: string;
  /** `git describe --always --dirty` of the tree measured ("unknown" when the run did not record it). */
  commit: string;
  /** 1-minute load average at the start and the end of the run. */
  loadAverage: { start: number; end: number };
}

/** What a results file records of its run. */
export interface RunFacts {
  date: string;
  commit?: string;
  loadAverage: { start: number; end: number };
}

/** The stamp of a run measured by `command`. */
export function runStamp(command: string, r: RunFacts): RunStamp {
  return { command, date: r.date, commit: r.commit ?? 'unknown', loadAverage: r.loadAverage };
}

/** True when the run's tree had uncommitted changes (`git describe --dirty`), or did not record its commit. */
export const measuredOnDirtyTree = (stamp: RunStamp): boolean => stamp.commit.endsWith('-dirty') || stamp.commit === 'unknown';

/** The warning a page opens with when its figures belong to no commit; '' for a clean run. */
export function dirtyTreeWarning(stamp: RunStamp): string {
  if (!measuredOnDirtyTree(stamp)) return '';
  const what = stamp.commit === 'unknown' ? 'a run that did not record its commit' : `a tree with uncommitted changes on top of \`${stamp.commit.replace(/-dirty$/, '')}\``;
  return `> **Not from a clean tree.** These figures come from ${what}: they belong to no commit. Rerun \`${stamp.command}\` from a clean checkout before quoting them.\n\n`;
}

const root = join(import.meta.dirname, '..', '..');
const repository = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/**
 * A link to `path` (relative to bench/, a folder when it ends with "/") in the repository at the
 * commit measured: the bench's sources and raw numbers, which the package does not ship.
 */
export function repositoryLink(path: string, stamp: RunStamp): string {
  const ref = stamp.commit === 'unknown' ? 'main' : stamp.commit.replace(/-dirty$/, '');
  return `${repository}/${path.endsWith('/') ? 'tree' : 'blob'}/${ref}/${posix.normalize(`bench/${path}`)}`;
}

/** A chart footer's words: the run, and a warning when its figures belong to no commit. */
export function stampText(stamp: RunStamp): { run: string; dirty: string | undefined } {
  const clean = stamp.commit.replace(/-dirty$/, '');
  const when = stamp.date.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  const load = `load ${stamp.loadAverage.start.toFixed(1)} → ${stamp.loadAverage.end.toFixed(1)}`;
  return {
    run: `${stamp.command} · ${when} · commit ${clean} · ${load}`,
    dirty: !measuredOnDirtyTree(stamp) ? undefined : stamp.commit === 'unknown' ? 'the run did not record its commit' : `measured with uncommitted changes on top of ${clean}: not a clean tree`,
  };
}
