/**
 * Function and method caching: `cache.wrap(fn, options)` and the `@cached` decorator both turn
 * a call into `getOrSet(key, () => fn(...args))`, so concurrent calls with the same arguments
 * share one execution and a stale value is served while one refresh runs (`grace`).
 */
import { toMs } from '../util/duration.ts';
import { checkKnownOptions } from '../util/known-options.ts';
import { sha256Hex } from '../util/sha256.ts';
import { encodeArguments } from './argument-key.ts';
import { GET_OR_SET_OPTIONS, ttlHint } from './call-options.ts';
import { fillBehaviour } from './fill/fill-request.ts';
import type { AnyFunction, Cache, FactoryContext, GetOrSetOptions, WrapOptions, WrappedFunction } from './types.ts';

export type { AnyFunction, WrapOptions, WrappedFunction } from './types.ts';

/**
 * Argument encodings longer than this many UTF-8 bytes are replaced by their SHA-256 digest, so
 * that keys stay short on every store (Workers KV refuses keys above 512 bytes).
 */
export const MAX_ENCODED_ARGUMENTS_BYTES = 200;

/** Every option of {@link WrapOptions}, for the unknown-option check: its own, and getOrSet's. */
const WRAP_OPTIONS: ReadonlyArray<keyof WrapOptions | 'tags'> = ['key', 'name', ...GET_OR_SET_OPTIONS];

/** Options checked once, when the function is wrapped or the method decorated. */
export interface ResolvedWrap<A extends unknown[], This> {
  /** Names the function in keys and errors, e.g. "getUser" or "UserRepo.find". */
  label: string;
  key: ((this: This, ...args: A) => string) | undefined;
  tags: WrapOptions<A, This>['tags'];
  /** The options every call passes to getOrSet (its tags apart). */
  callOptions: GetOrSetOptions;
}

/** Validates wrap options, throwing a TypeError or RangeError that names the bad one. */
export function resolveWrapOptions<A extends unknown[], This>(where: string, label: string | undefined, options: WrapOptions<A, This> | undefined): ResolvedWrap<A, This> {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    const meant = ttlHint(options);
    throw new TypeError(`cachette: ${where}: options must be an object${meant ? `, got ${JSON.stringify(options)}; ${meant}` : ''}`);
  }
  if (options !== undefined) checkKnownOptions(options, WRAP_OPTIONS, `cachette: ${where}`);
  const { key, name, tags, ...callOptions } = options ?? {};
  const { ttl, grace } = callOptions;
  if (key !== undefined && typeof key !== 'function') throw new TypeError(`cachette: ${where}: "key" must be a function (...args) => string`);
  if (name !== undefined && (typeof name !== 'string' || name === '')) throw new TypeError(`cachette: ${where}: "name" must be a non-empty string`);
  if (tags !== undefined && typeof tags !== 'function' && !isStringArray(tags)) throw new TypeError(`cachette: ${where}: "tags" must be an array of strings or a function returning one`);
  const resolvedLabel = name ?? label;
  if (!resolvedLabel && key === undefined) throw new TypeError(`cachette: ${where}: the function has no name to build keys from; pass a "name" or a "key" option`);
  // Checked now, so a malformed duration fails where the function is wrapped, not on a call.
  if (ttl !== undefined) toMs(ttl, `${where}: ttl`);
  if (grace !== undefined) toMs(grace, `${where}: grace`);
  fillBehaviour(callOptions, where);
  return { label: resolvedLabel ?? 'anonymous', key, tags, callOptions };
}

/** The key of one call: the custom key, or the label with the arguments' stable encoding. */
export function keyOfCall<A extends unknown[], This>(resolved: ResolvedWrap<A, This>, thisArg: This, args: A): string {
  if (resolved.key) {
    const key = resolved.key.apply(thisArg, args);
    if (typeof key !== 'string' || key === '') throw new TypeError(`cachette: ${resolved.label}: key(...args) must return a non-empty string, got ${typeof key === 'string' ? '""' : typeof key}`);
    return key;
  }
  const encoded = encodeArguments(args, resolved.label);
  if (utf8Length(encoded) <= MAX_ENCODED_ARGUMENTS_BYTES) return `${resolved.label}(${encoded})`;
  // A digest keeps keys short whatever a caller passes; SHA-256 because arguments may come
  // from clients, and a weak hash would let them forge a collision with someone else's entry.
  return `${resolved.label}(#sha256=${sha256Hex(encoded)})`;
}

/** The context of the wrapped call whose body is starting, while it starts (see {@link factoryContext}). */
let starting: FactoryContext<unknown> | undefined;

/**
 * The factory context of the fill that runs a wrapped function or a `@cached` method, read at
 * the start of its body (before its first `await`): a wrapped function keeps its own
 * parameters, so its context cannot be one of them. Undefined anywhere else, and when the call
 * was answered from the cache (the body does not run then).
 *
 * ```ts
 * const getToken = cache.wrap(async (user: string) => {
 *   const ctx = factoryContext<Token>();
 *   const token = await issue(user, { signal: ctx?.signal });
 *   ctx?.setOptions({ ttl: token.expiresInMs });
 *   return token;
 * });
 * ```
 */
export function factoryContext<T = unknown>(): FactoryContext<T> | undefined {
  return starting as FactoryContext<T> | undefined;
}

/** Runs one call through `getOrSet`. */
export async function cachedCall<A extends unknown[], R, This>(cache: Cache, resolved: ResolvedWrap<A, This>, fn: (this: This, ...args: A) => R | Promise<R>, thisArg: This, args: A): Promise<R> {
  const key = keyOfCall(resolved, thisArg, args);
  const tags = typeof resolved.tags === 'function' ? resolved.tags.apply(thisArg, args) : resolved.tags;
  if (tags !== undefined && !isStringArray(tags)) throw new TypeError(`cachette: ${resolved.label}: tags(...args) must return an array of strings`);
  const options: GetOrSetOptions = tags === undefined ? resolved.callOptions : { ...resolved.callOptions, tags };
  return cache.getOrSet<R>(
    key,
    (context) => {
      const outer = starting;
      starting = context as FactoryContext<unknown>;
      try {
        return fn.apply(thisArg, args);
      } finally {
        starting = outer;
      }
    },
    // The schema was given for the function's results: the same type.
    options as GetOrSetOptions<R>,
  );
}

/**
 * `cache.wrap(fn, options)`: see {@link WrapOptions}. The signature is read from `fn` alone, so a
 * `key` or `tags` callback that declares fewer parameters cannot narrow the wrapped function's.
 */
export function wrap<F extends AnyFunction>(
  cache: Cache,
  fn: F,
  options?: WrapOptions<Parameters<F>, ThisParameterType<F>>,
): WrappedFunction<Parameters<F>, Awaited<ReturnType<F>>, ThisParameterType<F>> {
  type A = Parameters<F>;
  type This = ThisParameterType<F>;
  type R = Awaited<ReturnType<F>>;
  if (typeof fn !== 'function') throw new TypeError('cachette: wrap(fn) needs a function');
  const resolved = resolveWrapOptions<A, This>('cache.wrap()', fn.name, options);
  const call = fn as unknown as (this: This, ...args: A) => Promise<R>;
  const wrapped = function (this: This, ...args: A): Promise<R> {
    return cachedCall(cache, resolved, call, this, args);
  };
  const keyFor = (...args: A): string => keyOfCall(resolved, undefined as This, args);
  return Object.assign(wrapped, {
    keyFor,
    delete: async (...args: A) => (await cache.delete(keyFor(...args))) > 0,
  });
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** UTF-8 length of `text`, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) bytes += unit >= 0x800 && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
