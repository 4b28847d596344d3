/**
 * Cache keys: the primary key names a URL (method-free: only GET is stored and HEAD is
 * answered from it), and a secondary key picks one variant among those the stored `Vary`
 * names (RFC 9111 §4.1).
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
export function primaryKeyFunction(o: KeyOptions): (request: Request) => string {
  if (o.key !== undefined) {
    if (typeof o.key !== 'function') throw new TypeError('httpCache: "key" must be a function (request) => string');
    const custom = o.key;
    return (request) => {
      const k = custom(request);
      if (typeof k !== 'string' || k.length === 0) throw new TypeError(`httpCache: the "key" function returned ${JSON.stringify(k)}; it must return a non-empty string`);
      return k;
    };
  }
  const ignore = o.ignoreQuery;
  if (ignore !== undefined && typeof ignore !== 'boolean' && !Array.isArray(ignore)) throw new TypeError('httpCache: "ignoreQuery" must be a boolean or an array of parameter names');
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

/**
 * The field names a `Vary` value lists, lowercase, sorted and unique; `'*'` when it lists `*`
 * (such a response can never be reused, §4.1).
 */
export function parseVary(value: string | null): readonly string[] | '*' {
  if (value === null) return [];
  const names = new Set<string>();
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '*') return '*';
    if (name) names.add(name);
  }
  return [...names].sort();
}

/**
 * The request's values for the varying fields, normalised so that insignificant whitespace
 * does not split variants (§4.1 allows it); `null` marks an absent field, distinct from empty.
 */
export function varyValues(names: readonly string[], headers: Headers): Array<string | null> {
  return names.map((name) => {
    const v = headers.get(name);
    return v === null ? null : v.replace(/\s*,\s*/g, ',').replace(/\s+/g, ' ').trim();
  });
}

/** True when both value lists are equal. */
export function sameValues(a: ReadonlyArray<string | null>, b: ReadonlyArray<string | null>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A short fixed-length digest of the values for the variant key (two FNV-1a 32-bit hashes).
 * Not cryptographic: the stored variant keeps its values, and a reader compares them, so a
 * collision is a miss, never a wrong response.
 */
export function variantDigest(values: ReadonlyArray<string | null>): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  const text = JSON.stringify(values);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36);
}
