/** The caching proxy's options, validated once when it starts. */
import type { HttpCacheOptions } from '../../src/http/index.ts';
import type { Store } from '../../src/store/types.ts';
import { toMs, type Duration } from '../../src/util/duration.ts';
import { redactUrl } from '../../src/util/redact-url.ts';
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
   * Keep the client's forwarding fields a front sets (`TRUSTED_FORWARDING_FIELDS`: Forwarded,
   * X-Forwarded-For, -Host, -Proto, -Port, -Prefix, X-Original-URL, X-Rewrite-URL, X-Real-IP)
   * instead of dropping them, and key responses on them (through Vary), except the client
   * addresses. The rest of the forwarding family (`isForwardingField`: X-Forwarded-Ssl,
   * X-Host, X-HTTP-Method-Override, CF-*, …) is dropped either way. Only for a proxy that only
   * a trusted front (CDN, load balancer) can reach. Default false.
   */
  trustForwarded?: boolean;
  /** Turns the purge endpoint on (off by default). */
  purge?: PurgeOptions;
  /**
   * Most bytes of response bodies held for clients that have not taken them, all connections
   * together (held-bytes.ts); past it, the connections that took nothing for the longest are
   * closed. Default 64 MiB, or `maxBodyBytes` when that is larger: one stored body always fits.
   */
  maxHeldBytes?: number;
  /** Closes a connection whose client takes none of the bytes held for it for this long. Default 60s. */
  writeTimeout?: Duration;
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
  maxHeldBytes: number;
  writeTimeoutMs: number;
}

/** The proxy's own options (the rest are the HTTP cache's, `store` among them). */
export const PROXY_OPTIONS: ReadonlyArray<keyof ProxyOptions> = ['origin', 'port', 'host', 'trustForwarded', 'purge', 'maxHeldBytes', 'writeTimeout'];

const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;
/** The cache's own default `maxBodyBytes`, which the bound on held bytes must not be below. */
const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Node's timers take at most 2^31 − 1 ms (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Validates the proxy's own options (the cache validates its own), throwing a TypeError or RangeError naming the bad one. */
export function resolveProxyOptions(options: ProxyOptions): ResolvedProxyOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('startProxy needs an options object with "origin" and "store"');
  const { origin, store, port = 0, host = '127.0.0.1', trustForwarded = false, purge, maxHeldBytes, writeTimeout = '60s', ...cacheOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`startProxy: "port" must be an integer from 0 to 65535, got ${port}`);
  if (typeof host !== 'string' || host === '') throw new TypeError('startProxy: "host" must be a non-empty string');
  if (typeof trustForwarded !== 'boolean') throw new TypeError('startProxy: "trustForwarded" must be a boolean');
  const maxBodyBytes = cacheOptions.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const heldBound = maxHeldBytes ?? Math.max(DEFAULT_MAX_HELD_BYTES, maxBodyBytes);
  if (!Number.isSafeInteger(heldBound) || heldBound < maxBodyBytes) {
    throw new RangeError(`startProxy: "maxHeldBytes" must be an integer of at least "maxBodyBytes" (${maxBodyBytes}), so that one stored body fits, got ${heldBound}`);
  }
  const writeTimeoutMs = toMs(writeTimeout, 'startProxy: writeTimeout');
  if (writeTimeoutMs === 0 || writeTimeoutMs > MAX_TIMER_MS) throw new RangeError(`startProxy: "writeTimeout" must be above 0 and at most ${MAX_TIMER_MS} ms, got ${String(writeTimeout)}`);
  return {
    origin: parseOrigin(origin),
    port,
    host,
    trustForwarded,
    cache: { ...cacheOptions, store },
    purge,
    maxHeldBytes: heldBound,
    writeTimeoutMs,
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
    throw new TypeError(`the origin must be an absolute http:// or https:// URL ${example}, got ${JSON.stringify(typeof origin === 'string' ? redactUrl(origin) : origin)}`);
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(`the origin must be an absolute http:// or https:// URL ${example}, got ${JSON.stringify(typeof origin === 'string' ? redactUrl(origin) : origin)}`);
  }
  if (url.username || url.password) throw new TypeError('the origin URL may not carry credentials: the proxy would send them with every request');
  if (url.search || url.hash) throw new TypeError(`the origin URL may not carry a query or fragment, got ${JSON.stringify(typeof origin === 'string' ? redactUrl(origin) : origin)}`);
  return url;
}
