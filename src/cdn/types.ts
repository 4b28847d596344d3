/**
 * What a CDN purge forwarder is to the engine (docs/cdn.md): a name for events and errors, the
 * most tags and URLs its API takes in one request, and one request's worth of sending. Retries,
 * batching, splitting and counting live once, in forwarding.ts; a forwarder only speaks its API.
 */

/** One request's worth of purges: tags and URLs, each within the forwarder's {@link PurgeLimits}. */
export interface PurgeBatch {
  readonly tags: readonly string[];
  readonly urls: readonly string[];
}

/** How much one request of a forwarder's API may carry; 0 means it cannot purge that kind at all. */
export interface PurgeLimits {
  /** Tags (surrogate keys) per request. */
  readonly tags: number;
  /** URLs per request. */
  readonly urls: number;
  /** True when one request may carry tags and URLs together (else they go in separate requests). */
  readonly mixed: boolean;
}

/** A CDN purge forwarder, given to `createCache({ cdn: [purger, …] })`. Built by `cloudflarePurge`, `fastlyPurge`, `vercelPurge` or `webhookPurge`. */
export interface CdnPurger {
  /** Its name in events, errors and stats (`cloudflare`, `fastly`, `vercel`, `webhook`). */
  readonly name: string;
  readonly limits: PurgeLimits;
  /**
   * Sends one request. Resolves when the CDN accepted it; rejects with a {@link CdnPurgeError}
   * that says whether trying again may help. `signal` aborts it (the cache is closing, or the
   * attempt's own deadline passed).
   */
  send(batch: PurgeBatch, signal: AbortSignal): Promise<void>;
}

/**
 * A purge request that failed. Its message names the forwarder, the HTTP status and the CDN's
 * own error text, never a token, a signing secret or an Authorization header.
 */
export class CdnPurgeError extends Error {
  override readonly name = 'CdnPurgeError';
  /** A stable code, as every error of the package has. */
  readonly code = 'E_CDN_PURGE';
  constructor(
    message: string,
    /** The HTTP status, or undefined when no response came (a network error, a timeout). */
    readonly status: number | undefined,
    /** True for a network error, a timeout, a 429 or a 5xx: trying again may succeed. */
    readonly retryable: boolean,
    /** A 429's or 503's `Retry-After`, in ms, when it gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
