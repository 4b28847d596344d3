/**
 * The primary cache key: it names a URL (method-free: only GET is stored and HEAD is answered
 * from it). The secondary key, which picks a variant among those `Vary` names, is vary.ts.
 */

/** How the primary key is derived from a request. */
export interface KeyOptions {
  /** Sort query parameters so `?a=1&b=2` and `?b=2&a=1` share an entry. Default false. */
  sortQuery?: boolean;
  /** Drop the whole query (`true`) or the named parameters (e.g. `['utm_source', 'fbclid']`). */
  ignoreQuery?: boolean | readonly string[];
  /**
   * Replaces the URL-derived primary key. Receives the request; must return a non-empty
   * string. `Vary` still selects variants under it.
   */
  key?: (request: Request) => string;
}

/** Builds the primary-key function from the options, validating them. */
export function primaryKeyFunction(o: KeyOptions, where: string): (request: Request) => string {
  if (o.key !== undefined) {
    if (typeof o.key !== 'function') throw new TypeError(`${where}: "key" must be a function (request) => string`);
    const custom = o.key;
    return (request) => {
      const k = custom(request);
      if (typeof k !== 'string' || k.length === 0) throw new TypeError(`${where}: the "key" function returned ${JSON.stringify(k)}; it must return a non-empty string`);
      return k;
    };
  }
  const ignore = o.ignoreQuery;
  if (ignore !== undefined && typeof ignore !== 'boolean' && !Array.isArray(ignore)) throw new TypeError(`${where}: "ignoreQuery" must be a boolean or an array of parameter names`);
  const dropped = Array.isArray(ignore) ? new Set<string>(ignore) : undefined;
  const sort = o.sortQuery === true;
  if (ignore === true) return (request) => withoutQuery(request.url);
  if (!sort && !dropped) return (request) => withoutFragment(request.url);
  return (request) => {
    // Request.url is already a serialized URL: scheme and host lower-cased, default port and
    // dot segments gone. Only the query needs work here.
    const url = new URL(request.url);
    url.hash = '';
    if (dropped) for (const name of dropped) url.searchParams.delete(name);
    if (sort) url.searchParams.sort();
    return url.href;
  };
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function withoutQuery(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
