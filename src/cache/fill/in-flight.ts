import type { TagSnapshot } from '../tiers/tier.ts';

/** A fill in flight in this process, registered under its store key so that concurrent callers join it. */
export interface Fill {
  promise: Promise<unknown>;
  /** The tags' state its factory started under; undefined while it has not started (it waits for a lease or a write). */
  asOf: TagSnapshot | undefined;
  /** Its store write, once started: the fill stays joinable until it has landed. */
  written: Promise<unknown> | undefined;
  /** Once its value is known: until when (by the cache's clock) that value is fresh. */
  freshUntil: number | undefined;
  /** The value kept past grace for a stale-if-error window: the factory's `ctx.stale`, served if it fails. */
  kept: { value: unknown } | undefined;
}

/** The state of a fill whose tags were not read (the store failed): nobody with tags joins it. */
export const UNKNOWN_STATE: TagSnapshot = Object.freeze({ generations: Object.freeze([]), fenced: Object.freeze([]) });

/**
 * Whether a tagged caller that read `current` may take the value of `fill`: yes while its
 * factory has not started (it will read the source later than now), or when no generation
 * moved since it started (no write committed in between, so it read what this caller would).
 * Otherwise the caller fills for itself: joining would hand it a value older than a commit
 * that returned before it asked.
 */
export function joinable(fill: Fill, current: TagSnapshot | undefined): boolean {
  if (fill.asOf === undefined || current === undefined) return true;
  if (current.fenced.length > 0 || fill.asOf.fenced.length > 0) return false;
  return sameGenerations(fill.asOf, current);
}

/** True when every tag of `later` is at the generation `earlier` recorded for it. */
export function sameGenerations(earlier: TagSnapshot, later: TagSnapshot): boolean {
  return later.generations.every((now) => earlier.generations.some((then) => then.tag === now.tag && then.generation === now.generation));
}
