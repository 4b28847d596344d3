import { apiBaseOf, describeError, postPurge, requiredSetting } from './api-call.ts';
import { fitTags, TAG_RULES } from './tag-rules.ts';
import type { CdnPurger, PurgeBatch } from './types.ts';

/** Options of {@link cloudflarePurge}. */
export interface CloudflarePurgeOptions {
  /** The zone's id (the dashboard's Overview page). */
  zoneId: string;
  /** An API token with the zone's Cache Purge permission, sent as a bearer token. */
  token: string;
  /** The API's base URL. Default `https://api.cloudflare.com/client/v4`. */
  apiBase?: string;
}

/**
 * Cloudflare's most operations in one purge request on every plan but Enterprise (whose bound is
 * higher); a larger purge is split into several requests.
 */
export const CLOUDFLARE_PER_REQUEST = 100;

/**
 * A forwarder to Cloudflare's zone purge (`POST /zones/{zoneId}/purge_cache`): tags as
 * `{ tags: [...] }`, URLs as `{ files: [...] }`, at most {@link CLOUDFLARE_PER_REQUEST} of
 * either per request. A reply of `{ success: false, errors }` is a failure, whatever its status.
 */
export function cloudflarePurge(options: CloudflarePurgeOptions): CdnPurger {
  const where = 'cloudflarePurge';
  const zoneId = requiredSetting(options?.zoneId, 'zoneId', where);
  const token = requiredSetting(options.token, 'token', where);
  const url = `${apiBaseOf(options.apiBase, 'https://api.cloudflare.com/client/v4', where)}/zones/${encodeURIComponent(zoneId)}/purge_cache`;
  return {
    name: 'cloudflare',
    limits: { tags: CLOUDFLARE_PER_REQUEST, urls: CLOUDFLARE_PER_REQUEST, mixed: false },
    send(batch: PurgeBatch, signal: AbortSignal) {
      const body = batch.tags.length > 0 ? { tags: fitTags(batch.tags, TAG_RULES.cloudflare).kept } : { files: batch.urls };
      return postPurge(
        'cloudflare',
        {
          url,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          secrets: [token],
          refuses: refusal,
        },
        signal,
      );
    },
  };
}

/** Cloudflare's envelope: `{ success, errors: [{ code, message }] }`. */
function refusal(reply: unknown): string | undefined {
  if (reply === null || typeof reply !== 'object' || (reply as { success?: unknown }).success !== false) return undefined;
  const errors = (reply as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 ? errors.map(describeError).join('; ') : 'success: false';
}
