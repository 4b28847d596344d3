/**
 * The per-call options of the engine's methods, checked on every call that passes some (a
 * call without options pays nothing): a misspelt `ttL` would otherwise store the value with
 * the default lifetime, in silence. See `callOptionsCheck` for what the check costs.
 */
import { callOptionsCheck } from '../util/known-options.ts';
import type { GetOrSetOptions, SetManyEntry, SetOptions } from './types.ts';

/** `set`, a factory's `ctx.setOptions`: { ttl, grace, tags }. */
export const checkSetOptions = callOptionsCheck(['ttl', 'grace', 'tags'] satisfies ReadonlyArray<keyof SetOptions>);

/** Every option of `getOrSet`: what is stored, and how the call behaves. */
export const GET_OR_SET_OPTIONS = ['ttl', 'grace', 'tags', 'waitUntil', 'refreshAhead', 'staleIfError', 'graceBackoff', 'schema', 'version'] as const satisfies ReadonlyArray<keyof GetOrSetOptions>;

/** `getOrSet`: {@link GET_OR_SET_OPTIONS}. */
export const checkGetOrSetOptions = callOptionsCheck(GET_OR_SET_OPTIONS);

/** One entry of `setMany`: the key and value, and the same options as `set`. */
export const checkSetManyEntry = callOptionsCheck(['key', 'value', 'ttl', 'grace', 'tags'] satisfies ReadonlyArray<keyof SetManyEntry>);

/** `incr`: { ttl }, which applies when the counter is created. */
export const checkIncrOptions = callOptionsCheck(['ttl']);
