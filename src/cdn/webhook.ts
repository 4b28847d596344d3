import { toHex } from '../util/hex.ts';
import { postPurge } from './api-call.ts';
import type { CdnPurger, PurgeBatch } from './types.ts';

/** Options of {@link webhookPurge}. */
export interface WebhookPurgeOptions {
  /** Where purges are POSTed. */
  url: string;
  /** Fields sent with every request (an Authorization, say); their values are never quoted in errors. */
  headers?: Record<string, string>;
  /**
   * Signs each body with HMAC-SHA-256 under `secret`: the field `header` (default
   * `x-cachette-signature`) carries `sha256=` and the signature in hex, for the receiver to
   * recompute over the raw body it received.
   */
  sign?: { secret: string; header?: string };
}

/** The most tags, and URLs, in one webhook request. */
export const WEBHOOK_PER_REQUEST = 1000;

/**
 * A forwarder to any endpoint of yours: a POST of `{ "tags": [...], "urls": [...] }` as JSON,
 * optionally signed (see {@link WebhookPurgeOptions.sign}). A 2xx is success; a 429 or 5xx is
 * retried, as for the CDNs' APIs.
 */
export function webhookPurge(options: WebhookPurgeOptions): CdnPurger {
  const where = 'cachette/cdn webhookPurge';
  if (typeof options?.url !== 'string' || !/^https?:\/\//i.test(options.url)) throw new TypeError(`${where}: "url" must be an http(s) URL`);
  const fields = { ...options.headers };
  for (const [name, value] of Object.entries(fields)) if (typeof value !== 'string') throw new TypeError(`${where}: header "${name}" must be a string`);
  const sign = options.sign;
  if (sign !== undefined && (typeof sign.secret !== 'string' || sign.secret.length === 0)) throw new TypeError(`${where}: "sign.secret" must be a non-empty string`);
  const signatureField = sign?.header ?? 'x-cachette-signature';
  let key: Promise<CryptoKey> | undefined;
  const secrets = [...Object.values(fields), ...(sign ? [sign.secret] : [])];
  const { url } = options;
  return {
    name: 'webhook',
    limits: { tags: WEBHOOK_PER_REQUEST, urls: WEBHOOK_PER_REQUEST, mixed: true },
    async send(batch: PurgeBatch, signal: AbortSignal) {
      const body = JSON.stringify({ tags: batch.tags, urls: batch.urls });
      const headers: Record<string, string> = { ...fields, 'content-type': 'application/json' };
      if (sign !== undefined) {
        key ??= crypto.subtle.importKey('raw', new TextEncoder().encode(sign.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
        const signature = await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(body));
        headers[signatureField] = `sha256=${toHex(new Uint8Array(signature))}`;
      }
      return postPurge('webhook', { url, headers, body, secrets }, signal);
    },
  };
}
