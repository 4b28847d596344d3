/**
 * The primary cache key: it names a URL (method-free: only GET is stored and HEAD is answered
 * from it). The secondary key, which picks a variant among those `Vary` names, is vary.ts.
 */

/** How the primary key is derived from a request. */
export interface KeyOptions {
  /**
   * Sort query parameters by name so `?a=1&b=2` and `?b=2&a=1` share an entry (parameters of
   * one name keep their order; each stays byte for byte as sent). Default false.
   */
  sortQuery?: boolean;
  /**
   * Drop the whole query (`true`) or the named parameters (e.g. `['utm_source', 'fbclid']`)
   * from the key. A parameter is dropped only when it is a whole `&`-separated pair whose name,
   * as sent (no decoding), is listed, and that holds no `;`: an origin that also splits on `;`
   * would read `?utm_source=x;callback=evil` as two parameters, the second one unkeyed. Every
   * other parameter stays in the key byte for byte as sent.
   */
  ignoreQuery?: boolean | readonly string[];
  /**
   * Replaces the URL-derived primary key. Receives the request; must return a non-empty
   * string. `Vary` still selects variants under it.
   */
  key?: (request: Request) => string;
}

/** Builds the primary-key function from the options, validating them. */
export function primaryKeyFunction(options: KeyOptions, where: string): (request: Request) => string {
  if (options.key !== undefined) {
    if (typeof options.key !== 'function') throw new TypeError(`${where}: "key" must be a function (request) => string`);
    const custom = options.key;
    return (request) => {
      const key = custom(request);
      if (typeof key !== 'string' || key.length === 0) throw new TypeError(`${where}: the "key" function returned ${JSON.stringify(key)}; it must return a non-empty string`);
      return key;
    };
  }
  const ignore = options.ignoreQuery;
  if (ignore !== undefined && typeof ignore !== 'boolean' && !Array.isArray(ignore)) throw new TypeError(`${where}: "ignoreQuery" must be a boolean or an array of parameter names`);
  const dropped = Array.isArray(ignore) ? new Set<string>(ignore) : undefined;
  const sort = options.sortQuery === true;
  if (ignore === true) return (request) => withoutQuery(request.url);
  if (!sort && !dropped) return (request) => withoutFragment(request.url);
  return (request) => {
    // Request.url is already a serialized URL: scheme and host lower-cased, default port and
    // dot segments gone. Only the query needs work, on its text as sent: re-serialising it
    // (URLSearchParams) would merge spellings an origin may tell apart (`a+b` and `a%20b`).
    const url = withoutFragment(request.url);
    const start = url.indexOf('?');
    if (start === -1) return url;
    let pairs = url.slice(start + 1).split('&');
    if (dropped) pairs = pairs.filter((pair) => !isDropped(pair, dropped));
    if (sort) pairs = sortedByName(pairs);
    return pairs.length === 0 ? url.slice(0, start) : `${url.slice(0, start)}?${pairs.join('&')}`;
  };
}

/** The name of a query pair as sent: what precedes its first `=`. */
function nameOf(pair: string): string {
  const equals = pair.indexOf('=');
  return equals === -1 ? pair : pair.slice(0, equals);
}

/** True for a pair `ignoreQuery` drops: a listed name, and no `;` that another parser would split it at. */
function isDropped(pair: string, names: ReadonlySet<string>): boolean {
  return !pair.includes(';') && names.has(nameOf(pair));
}

/** The pairs in order of name, pairs of one name in their order (Array.prototype.sort is stable). */
function sortedByName(pairs: readonly string[]): string[] {
  return pairs
    .map((pair) => [nameOf(pair), pair] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, pair]) => pair);
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function withoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
