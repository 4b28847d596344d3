/**
 * The URL a binding keys a request under when its framework routes on the request target and
 * the Host as the client sent them (Express, Connect, a plain node:http listener), rather than
 * on a parsed URL (Hono, Workers, Bun, Deno: they route on `request.url`, which is the key).
 *
 * A key is always a normalised URL: WHATWG URL parsing removes dot segments (`/a/../b`, also
 * spelt `%2e%2e` or with `\`), percent-encodes what the query may not hold raw, lower-cases and
 * percent-decodes the host (`sh%6Fp.example` is `shop.example`), rewrites IPv4 shorthands and
 * drops a default port. A framework that routes on the raw target would then run one route and
 * have its response stored under another URL (`GET /echo/../home` runs `/echo/*` and would be
 * stored as `/home`), and a raw Host it compares against a canonical name would be stored for
 * the canonical one. So a request is keyed only when normalising changes nothing at all, not
 * even the host's case (a canonical-host check that compares `req.hostname` as sent would
 * redirect `Host: SHOP.example` and have that stored for `shop.example`); any other request
 * goes past the cache. Browsers and CDNs send lower-case hosts, so nothing they ask is lost.
 */

/**
 * The absolute URL to key a request under: `scheme://authority` + `target`, when URL
 * normalisation leaves `target` and `authority` exactly as sent; undefined
 * otherwise (and for a target that is not in origin form, or an authority that is no host).
 */
export function routedUrl(scheme: 'http' | 'https', authority: string, target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}${target}`);
  } catch {
    return undefined;
  }
  // A fragment in the target, an empty `?`, a dot segment or an escaped byte all show here.
  if (url.host !== authority || url.pathname + url.search !== target) return undefined;
  return url.href;
}
