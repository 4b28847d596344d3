/**
 * The connection URLs the Valkey stores accept, checked once with messages that name the
 * accepted forms (and point HTTP URLs at the Upstash store).
 */

const URL_PROTOCOLS = ['redis:', 'rediss:', 'valkey:', 'valkeys:'];

/** Parses a Valkey/Redis URL or throws a TypeError naming the accepted forms; `who` starts the message. */
export function parseValkeyUrl(url: string, who = 'valkeyStore'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${who}: "${url}" is not a URL; use redis://host:port (or rediss://, valkey://, valkeys://)`);
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

/** Names a value that is not a connection, for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object that is not an iovalkey client' : `${typeof value} ${JSON.stringify(value)}`;
}
