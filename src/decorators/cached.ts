/**
 * `@cached(cache, options)`: a TC39 standard method decorator (TypeScript 5 without
 * `experimentalDecorators`; Bun and Deno run it natively) that sends each call through
 * `getOrSet`, exactly as `cache.wrap` does for plain functions.
 */
import type { Cache } from '../cache/create-cache.ts';
import { cachedCall, resolveWrapOptions, type ResolvedWrap, type WrapOptions } from '../cache/wrap.ts';

/** Where `@cached` finds its cache: the cache itself, or a function of the instance, e.g. `(self) => self.cache`. */
export type CacheSource<This> = Cache | ((self: This) => Cache);

/** A method `@cached` can decorate. It must be asynchronous: its result may come from the store. */
export type AsyncMethod<This, A extends unknown[], R> = (this: This, ...args: A) => Promise<R>;

/** The decorator `cached(cache, options)` returns. */
export type CachedMethodDecorator<This, A extends unknown[], R> = (method: AsyncMethod<This, A, R>, context: ClassMethodDecoratorContext<This, AsyncMethod<This, A, R>>) => AsyncMethod<This, A, R>;

/**
 * Caches a method's results by its arguments:
 *
 * ```ts
 * class Users {
 *   @cached(cache, { ttl: '1m', tags: (id) => [`user:${id}`] })
 *   async find(id: string): Promise<User> { … }
 * }
 * ```
 *
 * The default key is `Class.method(<arguments>)` (the class that declares the method, so a
 * subclass shares its parent's entries); `name` replaces `Class.method`, `key(...args)` builds
 * the whole key and sees the instance as `this`. The instance is not part of the default key:
 * when results depend on instance state (a tenant, a connection), put it in `key`. Concurrent
 * calls with equal arguments share one execution; see `WrapOptions` for `ttl`, `grace`, `tags`.
 */
export function cached<This, A extends unknown[], R>(cache: CacheSource<This>, options?: WrapOptions<A, This>): CachedMethodDecorator<This, A, R> {
  if (typeof cache !== 'function' && !isCache(cache)) throw new TypeError('cachette: @cached(cache, options) needs a cache from createCache() (or a function of the instance returning one)');
  return (method, context) => {
    if (context?.kind !== 'method' || typeof method !== 'function') {
      throw new TypeError(`cachette: @cached decorates class methods, not ${context?.kind ?? typeof method}`);
    }
    const methodName = typeof context.name === 'symbol' ? (context.name.description ?? 'symbol') : context.name;
    // Validated once, where the class is defined; the label is settled per declaring class.
    const resolved = resolveWrapOptions<A, This>(`@cached ${methodName}`, methodName, options);
    const labelled = new WeakMap<object, ResolvedWrap<A, This>>();
    const resolveFor = (self: This): ResolvedWrap<A, This> => {
      if (options?.name !== undefined || (typeof self !== 'object' && typeof self !== 'function') || self === null) return resolved;
      const owner = declaringClass(self, context, replacement);
      let forOwner = labelled.get(owner);
      if (!forOwner) {
        forOwner = { ...resolved, label: `${className(owner)}.${methodName}` };
        labelled.set(owner, forOwner);
      }
      return forOwner;
    };
    const replacement = function (this: This, ...args: A): Promise<R> {
      let target: Cache;
      try {
        target = typeof cache === 'function' ? cache(this) : cache;
      } catch (error) {
        return Promise.reject(error);
      }
      if (!isCache(target)) return Promise.reject(new TypeError(`cachette: @cached ${methodName}: the cache function did not return a cache`));
      return cachedCall(target, resolveFor(this), method, this, args);
    };
    return replacement;
  };
}

function isCache(value: unknown): value is Cache {
  return typeof value === 'object' && value !== null && typeof (value as Cache).getOrSet === 'function';
}

/**
 * The class whose body declares the decorated method: the first object up `self`'s prototype
 * chain that owns the replacement (the class itself for a static method). A private method is
 * on no prototype; its instance's own class stands in.
 */
function declaringClass(self: object, context: Pick<ClassMethodDecoratorContext, 'name' | 'private' | 'static'>, replacement: unknown): object {
  if (!context.private) {
    for (let at: object | null = context.static ? self : Object.getPrototypeOf(self); at !== null; at = Object.getPrototypeOf(at)) {
      const own = Object.getOwnPropertyDescriptor(at, context.name);
      if (own?.value === replacement) return context.static ? at : ((at as { constructor: object }).constructor ?? at);
    }
  }
  return context.static ? self : ((self as { constructor: object }).constructor ?? self);
}

function className(owner: object): string {
  const name = (owner as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : 'anonymous class';
}
