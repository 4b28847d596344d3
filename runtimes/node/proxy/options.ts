/** The caching proxy's options, validated once when it starts. */
import type { HttpCacheOptions } from '../../../src/http/index.ts';
import type { Store } from '../../../src/store/types.ts';
import type { PurgeOptions } from './purge-endpoint.ts';

/**
 * Options of `startProxy`: where the origin is, where to listen, what to trust, and the cache's
 * own options. The origin's timeouts are the cache's `originTimeout` (headers) and
 * `originIdleTimeout` (body silence), under the same names and with the same defaults as for
 * `httpCache`: the cache applies them, and the proxy has no timers of its own.
 */
export interface ProxyOptions extends Omit<HttpCacheOptions, 'store' | 'cache'> {
  /** The origin's base URL, e.g. "http://127.0.0.1:8000"; a path in it prefixes every request's path. */
  origin: string;
  /** Where the cache keeps responses. The proxy does not close it. */
  store: Store;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * Keep the client's forwarding fields (X-Forwarded-*, Forwarded, X-Original-URL,
   * X-Rewrite-URL, X-Real-IP) instead of dropping them, and key responses on them (through
   * Vary), except the client addresses. Only for a proxy that only a trusted front (CDN, load
   * balancer) can reach. Default false.
   */
  trustForwarded?: boolean;
  /** Turns the purge endpoint on (off by default). */
  purge?: PurgeOptions;
}

/** Options after validation. */
export interface ResolvedProxyOptions {
  origin: URL;
  port: number;
  host: string;
  trustForwarded: boolean;
  /** The cache's own options, with the store. */
  cache: HttpCacheOptions;
  purge: PurgeOptions | undefined;
}

/** The proxy's own options (the rest are the HTTP cache's, `store` among them). */
export const PROXY_OPTIONS: ReadonlyArray<keyof ProxyOptions> = ['origin', 'port', 'host', 'trustForwarded', 'purge'];

/** Validates the proxy's own options (the cache validates its own), throwing a TypeError or RangeError naming the bad one. */
export function resolveProxyOptions(options: ProxyOptions): ResolvedProxyOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('startProxy needs an options object with "origin" and "store"');
  const { origin, store, port = 0, host = '127.0.0.1', trustForwarded = false, purge, ...cacheOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`startProxy: "port" must be an integer from 0 to 65535, got ${port}`);
  if (typeof host !== 'string' || host === '') throw new TypeError('startProxy: "host" must be a non-empty string');
  if (typeof trustForwarded !== 'boolean') throw new TypeError('startProxy: "trustForwarded" must be a boolean');
  return {
    origin: parseOrigin(origin),
    port,
    host,
    trustForwarded,
    cache: { ...cacheOptions, store },
    purge,
  };
}

/**
 * The origin as a URL: absolute, http or https, without credentials, query or fragment. A
 * scheme-less "127.0.0.1:8000" is refused with the form to use instead, not read as a URL
 * whose scheme is "127.0.0.1".
 */
export function parseOrigin(origin: unknown): URL {
  const example = 'such as http://127.0.0.1:8000';
  if (typeof origin !== 'string' || !/^https?:\/\/[^/?#]/i.test(origin)) {
    throw new TypeError(`the origin must be an absolute http:// or https:// URL ${example}, got ${JSON.stringify(origin)}`);
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(`the origin must be an absolute http:// or https:// URL ${example}, got ${JSON.stringify(origin)}`);
  }
  if (url.username || url.password) throw new TypeError('the origin URL may not carry credentials: the proxy would send them with every request');
  if (url.search || url.hash) throw new TypeError(`the origin URL may not carry a query or fragment, got ${JSON.stringify(origin)}`);
  return url;
}
