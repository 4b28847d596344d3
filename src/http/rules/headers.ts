/** Header handling shared by the cache and by proxies built on it. */

const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** A valid field name (RFC 9110 §5.1: a token). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** True for a valid field name. */
export function isFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}

/** One header line as stored: lowercase name, value. */
export type HeaderPair = [name: string, value: string];

/**
 * True for a hop-by-hop field (RFC 9110 §7.6.1): Connection and every field it names,
 * Keep-Alive, Transfer-Encoding, TE, Trailer, Upgrade and every Proxy-* field. These describe
 * one connection and must never be stored or forwarded.
 */
export function isHopByHop(name: string, connectionNames: ReadonlySet<string> | undefined): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-') || connectionNames?.has(name) === true;
}

/** The field names listed in a Connection header, lowercase; undefined when there is none. */
export function connectionNames(headers: Headers): ReadonlySet<string> | undefined {
  const value = headers.get('connection');
  if (value === null) return undefined;
  return new Set(
    value
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** A copy of `headers` without hop-by-hop fields (and without `drop`, lowercase names). */
export function endToEndHeaders(headers: Headers, drop?: ReadonlySet<string>): Headers {
  const named = connectionNames(headers);
  const out = new Headers();
  for (const [name, value] of headers) {
    if (isHopByHop(name, named) || drop?.has(name)) continue;
    out.append(name, value);
  }
  return out;
}
