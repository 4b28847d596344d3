/**
 * The forwarding header fields: what a client may claim about where a request came from or
 * which URL it meant, and what the proxy tells the origin instead.
 *
 * An origin that builds links or redirects from `X-Forwarded-Host` would otherwise reflect a
 * value the cache key does not contain into a stored response, which every later client then
 * gets. So by default these fields are dropped from client requests and the proxy sets
 * `X-Forwarded-For`, `-Host` and `-Proto` itself, from the connection and from the keyed URL.
 * When the proxy runs behind a trusted front (a CDN, a load balancer) that sets them, they may
 * be trusted: then they reach the origin, and responses vary on them (see {@link TRUSTED_KEYED_FIELDS}).
 */

/** Client-sent fields that are dropped unless trusted, lowercase. */
export const FORWARDING_FIELDS: readonly string[] = [
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
export const TRUSTED_KEYED_FIELDS: readonly string[] = FORWARDING_FIELDS.filter((name) => name !== 'x-forwarded-for' && name !== 'x-real-ip');

const FORWARDING = new Set(FORWARDING_FIELDS);

/** True for a forwarding field (lowercase name). */
export function isForwardingField(name: string): boolean {
  return FORWARDING.has(name);
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
  if (vary !== null && vary.split(',').some((name) => name.trim() === '*')) return;
  const listed = new Set(
    (vary ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const missing = TRUSTED_KEYED_FIELDS.filter((name) => !listed.has(name));
  if (missing.length > 0) headers.set('vary', [vary, ...missing].filter(Boolean).join(', '));
}
