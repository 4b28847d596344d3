/** The caching proxy's options, validated once when it starts. */
import type { HttpCacheOptions } from '../../../src/http/index.ts';
import type { Store } from '../../../src/store/types.ts';
import { toMs, type Duration } from '../../../src/util/duration.ts';
import type { OriginTimeouts } from './origin-client.ts';
import type { PurgeOptions } from './purge-endpoint.ts';

/** Options of `startProxy`: where the origin is, where to listen, what to trust, and the cache's own options. */
export interface ProxyOptions extends Omit<HttpCacheOptions, 'store' | 'cache' | 'originTimeout' | 'originIdleTimeout'> {
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
  /** Origin timeouts. */
  originTimeout?: {
    /** Until the response headers arrive (connecting included); then 504, which stale-if-error may answer. Default "30s". */
    headers?: Duration;
    /** Longest silence while a body is being read; then the body fails. Default "30s". */
    bodyIdle?: Duration;
  };
}

/** Options after validation. */
export interface ResolvedProxyOptions {
  origin: URL;
  port: number;
  host: string;
  trustForwarded: boolean;
  timeouts: OriginTimeouts;
  /** The cache's own options, with the store. */
  cache: HttpCacheOptions;
  purge: PurgeOptions | undefined;
}

const DEFAULT_TIMEOUT: Duration = '30s';

/** Validates the proxy's own options (the cache validates its own), throwing a TypeError or RangeError naming the bad one. */
export function resolveProxyOptions(options: ProxyOptions): ResolvedProxyOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('startProxy needs an options object with "origin" and "store"');
  const { origin, store, port = 0, host = '127.0.0.1', trustForwarded = false, purge, originTimeout = {}, ...cacheOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`startProxy: "port" must be an integer from 0 to 65535, got ${port}`);
  if (typeof host !== 'string' || host === '') throw new TypeError('startProxy: "host" must be a non-empty string');
  if (typeof trustForwarded !== 'boolean') throw new TypeError('startProxy: "trustForwarded" must be a boolean');
  const timeouts = {
    headersMs: positiveMs(originTimeout.headers ?? DEFAULT_TIMEOUT, 'originTimeout.headers'),
    bodyIdleMs: positiveMs(originTimeout.bodyIdle ?? DEFAULT_TIMEOUT, 'originTimeout.bodyIdle'),
  };
  return {
    origin: parseOrigin(origin),
    port,
    host,
    trustForwarded,
    timeouts,
    // The cache applies the same limits to every origin call it makes.
    cache: { ...cacheOptions, store, originTimeout: timeouts.headersMs, originIdleTimeout: timeouts.bodyIdleMs },
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

function positiveMs(value: Duration, what: string): number {
  const ms = toMs(value, `startProxy: ${what}`);
  if (!(ms > 0 && ms < 2 ** 31)) throw new RangeError(`startProxy: ${what} must be above 0 and below 24 days, got ${JSON.stringify(value)}`);
  return ms;
}
