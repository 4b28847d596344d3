/**
 * The connection URLs the Valkey stores accept, checked once with messages that name the
 * accepted forms (and point HTTP URLs at the Upstash store), and how a URL becomes the store's own
 * connection.
 */
import { redactUrl } from '../../src/util/redact-url.ts';
import { DEFAULT_SOCKET_TIMEOUT, type RespConnectionOptions } from './resp/connection.ts';

const URL_PROTOCOLS = ['redis:', 'rediss:', 'valkey:', 'valkeys:'];

/** Parses a Valkey/Redis URL or throws a TypeError naming the accepted forms; `who` starts the message. */
export function parseValkeyUrl(url: string, who = 'valkeyStore'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${who}: "${redactUrl(url)}" is not a URL; use redis://host:port (or rediss://, valkey://, valkeys://)`);
  }
  if (!URL_PROTOCOLS.includes(parsed.protocol)) {
    throw new TypeError(
      `${who}: "${parsed.protocol}" URLs are not Valkey/Redis URLs; use redis://host:port (or rediss://, valkey://, valkeys://)${parsed.protocol.startsWith('http') ? ' — for Redis over HTTP use upstashStore from cachette/adapters/upstash' : ''}`,
    );
  }
  return parsed;
}

/** Checks a URL and returns it in the form iovalkey reads (valkey:// and valkeys:// mean redis:// and rediss://). */
export function checkUrl(url: string): string {
  const parsed = parseValkeyUrl(url);
  // iovalkey knows redis:// and rediss://; valkey:// and valkeys:// mean the same.
  return parsed.protocol.startsWith('valkey') ? url.replace(/^valkey/, 'redis') : url;
}

/** True for rediss:// and valkeys:// (TLS). */
export function isTlsUrl(url: URL): boolean {
  return url.protocol === 'rediss:' || url.protocol === 'valkeys:';
}

/**
 * The error for options that put the URL or the address where `connection` goes — `{ url }`, or
 * iovalkey's `{ host, port }` — with the call meant, or undefined. One name, `connection`, takes a
 * URL or a client; these are not a second way to say it.
 */
export function connectionMistake(options: object): TypeError | undefined {
  if ('connection' in options) return undefined;
  const { url, host, port, path } = options as Record<string, unknown>;
  if (typeof url === 'string') return new TypeError(`valkeyStore: a URL is passed as itself or as "connection" — did you mean valkeyStore(${JSON.stringify(redactUrl(url))})?`);
  if (host !== undefined || port !== undefined || path !== undefined) {
    const address = path !== undefined ? `"${String(path)}" as clientOptions.path` : `"redis://${String(host ?? '127.0.0.1')}:${String(port ?? 6379)}"`;
    return new TypeError(`valkeyStore: the server is named by "connection", a URL (connection options go in "clientOptions") — did you mean valkeyStore(${address})?`);
  }
  return undefined;
}

/** Names a value that is not a connection, for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object that is not an iovalkey client' : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * The iovalkey options the store's own connection implements, as it implements them. Given any
 * other (Sentinel, a custom Connector, `commandTimeout`, …), the store opens an iovalkey client
 * instead and writes its commands through it.
 */
const OWN_CONNECTION_OPTIONS = new Set([
  'host',
  'port',
  'path',
  'family',
  'tls',
  'username',
  'password',
  'db',
  'connectionName',
  'connectTimeout',
  'keepAlive',
  'retryStrategy',
  'lazyConnect',
  'socketTimeout',
  // Always on (noDelay), irrelevant (autopipelining: the store writes once per call anyway), or
  // answered the store's way: a command is never resent after a reconnect, and only the first
  // connection is waited for (maxRetriesPerRequest, enableOfflineQueue, enableReadyCheck).
  'noDelay',
  'enableAutoPipelining',
  'maxRetriesPerRequest',
  'enableOfflineQueue',
  'enableReadyCheck',
  'showFriendlyErrorStack',
]);

/** How the store's own connection to `url` is made, with `clientOptions` applied; undefined when they ask for what only iovalkey does. */
export function ownConnectionOptions(url: string, clientOptions: Readonly<Record<string, unknown>> = {}): RespConnectionOptions | undefined {
  const parsed = parseValkeyUrl(url);
  const fromUrl: Record<string, unknown> = { ...Object.fromEntries(parsed.searchParams) };
  if (parsed.hostname) fromUrl.host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (parsed.port) fromUrl.port = Number(parsed.port);
  if (parsed.username) fromUrl.username = decodeURIComponent(parsed.username);
  if (parsed.password) fromUrl.password = decodeURIComponent(parsed.password);
  if (parsed.pathname.length > 1) fromUrl.db = parsed.pathname.slice(1);
  if (isTlsUrl(parsed)) fromUrl.tls = {};
  const merged: Record<string, unknown> = { ...fromUrl, ...clientOptions };
  for (const [name, value] of Object.entries(merged)) if (value !== undefined && !OWN_CONNECTION_OPTIONS.has(name)) return undefined;
  const number = (name: string) => (merged[name] === undefined ? undefined : checkNumber(name, merged[name]));
  const options: RespConnectionOptions = {};
  if (merged.path !== undefined) options.path = String(merged.path);
  if (merged.host !== undefined) options.host = String(merged.host);
  const port = number('port');
  if (port !== undefined) options.port = port;
  const family = number('family');
  if (family !== undefined) options.family = family;
  if (merged.tls !== undefined && merged.tls !== false) options.tls = merged.tls === true ? {} : (merged.tls as RespConnectionOptions['tls']);
  if (merged.username !== undefined) options.username = String(merged.username);
  if (merged.password !== undefined) options.password = String(merged.password);
  const db = number('db');
  if (db !== undefined) options.db = db;
  if (merged.connectionName !== undefined) options.connectionName = String(merged.connectionName);
  const connectTimeout = number('connectTimeout');
  if (connectTimeout !== undefined) options.connectTimeout = connectTimeout;
  const keepAlive = number('keepAlive');
  if (keepAlive !== undefined) options.keepAlive = keepAlive;
  if (typeof merged.retryStrategy === 'function') options.retryStrategy = merged.retryStrategy as RespConnectionOptions['retryStrategy'];
  if (merged.lazyConnect === true || merged.lazyConnect === 'true') options.lazyConnect = true;
  if (merged.socketTimeout !== undefined) options.socketTimeout = checkSocketTimeout(merged.socketTimeout);
  return options;
}

/**
 * iovalkey's `socketTimeout` for a client the store opens (for iovalkey-only options, or a
 * cluster's node connections), from the one given: the store's default when none is, none for
 * `Infinity` (iovalkey would take Infinity for 1 ms).
 */
export function iovalkeySocketTimeout(given: unknown): number | undefined {
  if (given === undefined) return DEFAULT_SOCKET_TIMEOUT;
  const ms = checkSocketTimeout(given);
  return ms === Infinity ? undefined : ms;
}

/** A socketTimeout: a positive number of ms, or Infinity for none. */
function checkSocketTimeout(value: unknown): number {
  const ms = Number(value);
  if (!(ms > 0)) throw new TypeError(`valkeyStore: "socketTimeout" must be a positive number of ms (Infinity for none), got ${JSON.stringify(value)}`);
  return ms;
}

function checkNumber(name: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`valkeyStore: "${name}" must be a number, got ${JSON.stringify(value)}`);
  return n;
}
