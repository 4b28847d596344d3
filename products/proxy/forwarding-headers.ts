/**
 * The forwarding header fields: what a client may claim about where a request came from or
 * which URL it meant, and what the proxy tells the origin instead.
 *
 * An origin that builds links or redirects from such a claim would otherwise reflect a value the
 * cache key does not contain into a stored response, which every later client then gets: Rack
 * takes the scheme from X-Forwarded-Ssl or X-Forwarded-Scheme, frameworks the host from X-Host,
 * X-Forwarded-Server, X-Original-Host or X-HTTP-Host-Override, IIS the scheme from
 * Front-End-Https. There are too many such fields to list, so they are known by family
 * ({@link isForwardingField}), and every field of the family is dropped from client requests.
 * The proxy sets `X-Forwarded-For`, `-Host` and `-Proto` itself, from the connection and from
 * the keyed URL.
 *
 * When the proxy runs behind a trusted front (a CDN, a load balancer), the fields such a front
 * sets may be trusted ({@link TRUSTED_FORWARDING_FIELDS}): then those reach the origin and
 * responses vary on them ({@link TRUSTED_KEYED_FIELDS}); the rest of the family is dropped all
 * the same, since the cache does not key on it.
 */

/**
 * The family, by exact name: client addresses (the proxy sets X-Forwarded-For itself), scheme
 * claims (IIS, Tornado, WSGI setups), and method overrides, which would make the origin run
 * DELETE for a GET the cache stores.
 */
const FAMILY_NAMES: ReadonlySet<string> = new Set([
  'forwarded',
  'x-host',
  'x-rewrite-url',
  'x-proxyuser-ip',
  'true-client-ip',
  'client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-originating-ip',
  'x-remote-ip',
  'x-remote-addr',
  'front-end-https',
  'x-arr-ssl',
  'x-url-scheme',
  'x-scheme',
  'x-http-method',
  'x-method-override',
]);

/**
 * The family, by prefix: X-Forwarded-* (Host, Proto, Ssl, Scheme, Server, Port, Prefix, …),
 * X-Original-* (URL, Host, …), X-Real-* (IP, …), Envoy's X-Envoy-* (original path, timeouts),
 * and the fields Cloudflare and Fastly set in front of an origin (CF-Visitor carries the
 * scheme, CF-Connecting-IP and Fastly-Client-IP the client's address). Besides these,
 * X-HTTP-*-Override (Host, Method, …).
 */
const FAMILY_PREFIXES: readonly string[] = ['x-forwarded-', 'x-original-', 'x-real-', 'x-envoy-', 'cf-', 'fastly-'];

/** Client-sent forwarding fields kept under `trustForwarded` (every other one is always dropped), lowercase. */
export const TRUSTED_FORWARDING_FIELDS: readonly string[] = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-original-url',
  'x-rewrite-url',
  'x-real-ip',
];

/**
 * The trusted fields the cache keys on (through `Vary`): all but the client addresses, which
 * would split every URL into one entry per client. An origin must not reflect an address
 * into a shared response.
 */
export const TRUSTED_KEYED_FIELDS: readonly string[] = TRUSTED_FORWARDING_FIELDS.filter((name) => name !== 'x-forwarded-for' && name !== 'x-real-ip');

const TRUSTED: ReadonlySet<string> = new Set(TRUSTED_FORWARDING_FIELDS);
const LOWER_X = 0x78;
const LOWER_C = 0x63;
const LOWER_F = 0x66;

/** True for a field of the forwarding family (lowercase name), trusted or not. */
export function isForwardingField(name: string): boolean {
  if (FAMILY_NAMES.has(name)) return true;
  // Every prefix starts with x, c or f: one comparison settles almost every other field.
  const first = name.charCodeAt(0);
  if (first !== LOWER_X && first !== LOWER_C && first !== LOWER_F) return false;
  for (const prefix of FAMILY_PREFIXES) if (name.startsWith(prefix)) return true;
  return name.startsWith('x-http-') && name.endsWith('-override');
}

/** True when a client's field (lowercase name) is dropped before the request reaches the cache and the origin. */
export function isDroppedForwardingField(name: string, trustForwarded: boolean): boolean {
  return isForwardingField(name) && !(trustForwarded && TRUSTED.has(name));
}

/** What the proxy knows about one request, to tell the origin. */
export interface ForwardingFacts {
  /** The client's address, from the connection. */
  clientAddress: string | undefined;
  /** The authority the request is keyed under, e.g. "example.com" or "127.0.0.1:8082". */
  host: string;
  /** The scheme the client used to reach the proxy. */
  proto: 'http' | 'https';
  /** The proxy's entry for `Via` (RFC 9110 §7.6.3), e.g. "1.1 cachette". */
  via: string;
  /** Whether the client's own forwarding fields were kept. */
  trusted: boolean;
}

/**
 * Sets the forwarding fields on `headers` (already without the client's, unless trusted):
 * `X-Forwarded-For` gets the client address (appended to a trusted list), `X-Forwarded-Host`
 * and `-Proto` describe the keyed URL unless a trusted front set them, and `Via` gets the
 * proxy's entry.
 */
export function setForwardingFields(headers: Headers, facts: ForwardingFacts): void {
  if (facts.clientAddress !== undefined) {
    const list = facts.trusted ? headers.get('x-forwarded-for') : null;
    headers.set('x-forwarded-for', list ? `${list}, ${facts.clientAddress}` : facts.clientAddress);
  }
  if (!facts.trusted || !headers.has('x-forwarded-host')) headers.set('x-forwarded-host', facts.host);
  if (!facts.trusted || !headers.has('x-forwarded-proto')) headers.set('x-forwarded-proto', facts.proto);
  headers.append('via', facts.via);
}

/**
 * Adds the trusted keyed fields to `headers`' `Vary`, so that the cache stores one variant per
 * combination of their values and a downstream cache learns the same. `Vary: *` is left as it
 * is (such a response is never reused anyway).
 */
export function varyOnTrustedFields(headers: Headers): void {
  const vary = headers.get('vary');
  if (vary?.split(',').some((name) => name.trim() === '*')) return;
  const listed = new Set(
    (vary ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const missing = TRUSTED_KEYED_FIELDS.filter((name) => !listed.has(name));
  if (missing.length > 0) headers.set('vary', [vary, ...missing].filter(Boolean).join(', '));
}
