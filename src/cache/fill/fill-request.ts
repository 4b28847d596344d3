import { toMs, type Duration } from '../../util/duration.ts';
import type { WaitUntil } from '../background.ts';
import { checkTags } from '../tags/tag-keys.ts';
import type { Factory, GetOrSetOptions } from '../types.ts';
import type { Lifetimes } from '../roles/lifetimes.ts';
import { checkSchema, type StandardSchema } from './schema.ts';
import { checkVersion } from '../roles/versioned.ts';

/** One `getOrSet` call, its inputs resolved once by the front. */
export interface FillRequest<T> extends FillBehaviour {
  /** The caller's key. */
  readonly key: string;
  /** Its store key. */
  readonly full: string;
  readonly factory: Factory<T>;
  readonly lifetimes: Lifetimes;
  /** The caller's tags, checked and without duplicates. */
  readonly tags: readonly string[];
  /** When the call began (performance.now()), or 0 when nobody listens for durations. */
  readonly started: number;
}

/** How a `getOrSet` call behaves, besides what it stores: its options resolved. */
export interface FillBehaviour {
  readonly waitUntil: WaitUntil | undefined;
  /** The call's `refreshAhead` fraction (undefined: none). */
  readonly refreshAhead: number | undefined;
  /** What a stored value must pass to be served (undefined: anything). */
  readonly schema: StandardSchema | undefined;
  /** The version a stored value must have been written under, and fills write (undefined: any). */
  readonly version: string | number | undefined;
  /** The call's `graceBackoff` in ms (undefined: the cache's). */
  readonly graceBackoffMs: number | undefined;
  /** The call's `xfetch` β (0: off for this call; undefined: the cache's). */
  readonly xfetch: number | undefined;
  /** The call's `negativeTtl` in ms (undefined: the cache's). */
  readonly negativeTtlMs: number | undefined;
}

/**
 * Checks the options of a call that say how it behaves (not what it stores), throwing a
 * TypeError or RangeError that names the bad one and `where` (the call, or the wrap).
 */
export function fillBehaviour(options: GetOrSetOptions<unknown> | undefined, where: string): FillBehaviour {
  const waitUntil = options?.waitUntil;
  if (waitUntil !== undefined && typeof waitUntil !== 'function') throw new TypeError(`cachette: ${where}: "waitUntil" must be a function (promise) => void, got ${typeof waitUntil}`);
  const graceBackoffMs = options?.graceBackoff === undefined ? undefined : toMs(options.graceBackoff, `${where}: graceBackoff`);
  const refreshAhead = options?.refreshAhead === undefined ? undefined : checkRefreshAhead(options.refreshAhead, where);
  const schema = options?.schema === undefined ? undefined : checkSchema(options.schema, where);
  const version = options?.version === undefined ? undefined : checkVersion(options.version, where);
  const xfetch = options?.xfetch === undefined ? undefined : checkXfetch(options.xfetch, where);
  const negativeTtlMs = options?.negativeTtl === undefined ? undefined : checkNegativeTtl(options.negativeTtl, where);
  return { waitUntil, graceBackoffMs, refreshAhead, schema, version, xfetch, negativeTtlMs };
}

/** `xfetch`: `true` (β = 1), `false` (off: 0), or β itself, a finite number greater than 0. */
export function checkXfetch(xfetch: unknown, where: string): number {
  if (xfetch === true) return 1;
  if (xfetch === false) return 0;
  if (typeof xfetch === 'number' && xfetch > 0 && Number.isFinite(xfetch)) return xfetch;
  throw new RangeError(`cachette: ${where}: "xfetch" must be true, false or β, a finite number greater than 0 (1 is the usual choice), got ${String(xfetch)}`);
}

/** `refreshAhead`: a fraction of the ttl strictly between 0 and 1. */
export function checkRefreshAhead(fraction: unknown, where: string): number {
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1))
    throw new RangeError(`cachette: ${where}: "refreshAhead" must be a fraction of the ttl between 0 and 1 (e.g. 0.8), got ${String(fraction)}`);
  return fraction;
}

/** One `getOrSet` call's inputs as the fill handler takes them, each option checked (after the unknown-name check). */
export function fillRequest<T>(key: string, full: string, factory: Factory<T>, lifetimes: Lifetimes, options: GetOrSetOptions | undefined, started: number): FillRequest<T> {
  const where = `getOrSet("${key}")`;
  return { key, full, factory, lifetimes, tags: checkTags(options?.tags, where), started, ...fillBehaviour(options, where) };
}

/** `negativeTtl`: a duration greater than 0. */
export function checkNegativeTtl(negativeTtl: Duration, where: string): number {
  const ms = toMs(negativeTtl, `cachette: ${where}: "negativeTtl"`);
  if (ms === 0) throw new RangeError(`cachette: ${where}: "negativeTtl" must be greater than 0 (a factory can skip storing with ctx.skip())`);
  return ms;
}
