/**
 * `@cachedResponse(options)`: a TC39 standard method decorator for fetch-style handler methods,
 * `(request, ...rest) => Promise<Response>`, putting the shared HTTP cache (`cachette/http`) in
 * front of them. The policy is the one every binding uses; this file only translates.
 */
import { openHttpCache } from '../http/exchange/http-cache.ts';
import type { HttpCache, HttpCacheOptions, PurgeTarget, WaitUntilContext } from '../http/index.ts';

/** A handler method `@cachedResponse` can decorate: a Request first, any further arguments after. */
export type ResponseMethod<This, A extends unknown[]> = (this: This, request: Request, ...rest: A) => Promise<Response>;

/** The decorator returned by {@link cachedResponse}, with the controls of the cache behind it. */
export interface CachedResponseDecorator {
  <This, A extends unknown[]>(method: ResponseMethod<This, A>, context: ClassMethodDecoratorContext<This, ResponseMethod<This, A>>): ResponseMethod<This, A>;
  /** Deletes the responses stored for a URL (every variant) or carrying a tag. */
  purge(target: PurgeTarget): Promise<number>;
  /** Resolves when background store writes and revalidations have settled. */
  idle(): Promise<void>;
  /** Waits for background work, then closes the engine it opened (never a store or cache you passed in). */
  close(): Promise<void>;
  /** The policy object behind the decorator. */
  readonly httpCache: HttpCache;
}

/**
 * Caches the responses of a fetch-style handler method as an RFC 9111 shared cache:
 *
 * ```ts
 * const pages = cachedResponse({ store, ttl: '30s' });
 * class Api {
 *   @pages
 *   async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> { … }
 * }
 * await pages.purge({ tag: 'products' });
 * ```
 *
 * Options are checked here, once. Every method the decorator is applied to shares its cache
 * (responses are keyed by URL). The method is called again, with the same instance and
 * arguments, for background revalidation (stale-while-revalidate) after the client was
 * answered. When an argument after the request (or the instance's `ctx`, as on a Workers
 * entrypoint or Durable Object) has `waitUntil`, store writes and revalidations run inside it.
 */
export function cachedResponse(options: HttpCacheOptions): CachedResponseDecorator {
  const policy = openHttpCache(options, { name: '@cachedResponse()' });
  const decorator = <This, A extends unknown[]>(method: ResponseMethod<This, A>, context: ClassMethodDecoratorContext<This, ResponseMethod<This, A>>): ResponseMethod<This, A> => {
    if (context?.kind !== 'method' || typeof method !== 'function') {
      throw new TypeError(`cachette: @cachedResponse decorates class methods, not ${context?.kind ?? typeof method}`);
    }
    const methodName = String(context.name);
    return function (this: This, request: Request, ...rest: A): Promise<Response> {
      if (!isRequest(request)) return Promise.reject(new TypeError(`cachette: @cachedResponse ${methodName}: the first argument must be a Request, got ${describe(request)}`));
      const platform = waitUntilOf(rest, this);
      return policy.handle(request, (forwarded) => method.call(this, forwarded, ...rest), platform ? { waitUntil: (promise) => platform.waitUntil(promise) } : {});
    };
  };
  return Object.assign(decorator, {
    purge: (target: PurgeTarget) => policy.purge(target),
    idle: () => policy.idle(),
    close: () => policy.close(),
    httpCache: policy,
  });
}

/** Duck-typed, so a Request from another realm or polyfill still counts. */
function isRequest(value: unknown): value is Request {
  const candidate = value as Partial<Request> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.url === 'string' && typeof candidate.method === 'string' && typeof candidate.headers?.get === 'function';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return typeof value;
}

/** The platform context among the method's further arguments (last first), else the instance's `ctx`. */
function waitUntilOf(rest: readonly unknown[], self: unknown): Required<WaitUntilContext> | undefined {
  const candidates = [...rest].reverse();
  if (typeof self === 'object' && self !== null) candidates.push((self as { ctx?: unknown }).ctx);
  for (const candidate of candidates) {
    if (typeof candidate === 'object' && candidate !== null && typeof (candidate as WaitUntilContext).waitUntil === 'function') return candidate as Required<WaitUntilContext>;
  }
  return undefined;
}
