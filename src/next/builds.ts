/**
 * Entries across builds (docs/next.md#across-deploys). Every record the handlers store carries
 * the `buildId` and `version` of the handler that stored it. A read refuses a record of another
 * version (a miss, counted: its shape may not be the one this build's code reads) and counts a
 * data record another build stored, so that a deploy that starts warm can be seen to.
 *
 * This is the handlers' own mark, in their own records, rather than the engine's `version`:
 * the engine checks that one in `getOrSet` fills only, and Next hands the handlers values it
 * computed itself, to store (`set`) and read back (`get`), which no fill sees.
 */
import type { HandlerContext, NextHandlerStats } from './options.ts';

/** Who stored a record: the `buildId` and `version` of its handler (each absent when not given). */
export interface BuildMarks {
  build?: string;
  version?: string | number;
}

/** The marks a record stored by this context's handler carries. */
export function marksOf(context: HandlerContext): BuildMarks {
  return { ...(context.buildId === undefined ? {} : { build: context.buildId }), ...(context.version === undefined ? {} : { version: context.version }) };
}

/** The marks read back from a stored record, or undefined when one of them is not of its type (another program's record). */
export function readMarks(stored: Record<string, unknown>): BuildMarks | undefined {
  const { build, version } = stored;
  if (build !== undefined && typeof build !== 'string') return undefined;
  if (version !== undefined && typeof version !== 'string' && !(typeof version === 'number' && Number.isFinite(version))) return undefined;
  return { ...(build === undefined ? {} : { build }), ...(version === undefined ? {} : { version }) };
}

/**
 * True when a record of `marks` may be served by this context's handler: it was stored under
 * this handler's `version` (none matching none). A record of another version is a miss, counted
 * and said once.
 */
export function admitted(context: HandlerContext, marks: BuildMarks, key: string): boolean {
  if (marks.version === context.version) return true;
  context.counts.otherVersions++;
  context.inform(
    'version',
    `entries stored under version ${JSON.stringify(marks.version ?? null)} are misses for this handler's ${JSON.stringify(context.version ?? null)} (counted in stats().otherVersions), first for ${key.slice(0, 120)}`,
  );
  return false;
}

/** Notes a data record of `marks` being served: one another build stored is counted, and said once. */
export function served(context: HandlerContext, marks: BuildMarks): void {
  if (marks.build === undefined || context.buildId === undefined || marks.build === context.buildId) return;
  context.counts.fromOtherBuilds++;
  context.inform('build', `serving data entries stored by other builds (counted in stats().fromOtherBuilds), first one of build ${JSON.stringify(marks.build)}`);
}

/** A copy of what the context counted. */
export function statsOf(context: HandlerContext): NextHandlerStats {
  return { ...context.counts };
}
