import { apiBaseOf, postPurge, requiredSetting } from './api-call.ts';
import { fitTags, TAG_RULES } from './tag-rules.ts';
import type { CdnPurger, PurgeBatch } from './types.ts';

/** Options of {@link fastlyPurge}. */
export interface FastlyPurgeOptions {
  /** The service's id. */
  serviceId: string;
  /** An API token with the `purge_select` scope, sent as `Fastly-Key`. */
  token: string;
  /** The API's base URL. Default `https://api.fastly.com`. */
  apiBase?: string;
  /** Soft purge (`Fastly-Soft-Purge: 1`): objects are marked stale instead of removed. Default false. */
  soft?: boolean;
}

/** Fastly's most surrogate keys in one batch purge request. */
export const FASTLY_PER_REQUEST = 256;

/**
 * A forwarder to Fastly's batch purge by surrogate key (`POST /service/{serviceId}/purge`, the
 * keys space-separated in a `Surrogate-Key` header), at most {@link FASTLY_PER_REQUEST} keys a
 * request. It purges tags only: URLs given to it are not sent (Fastly purges a URL by another
 * call per URL, which this forwarder does not make).
 */
export function fastlyPurge(options: FastlyPurgeOptions): CdnPurger {
  const where = 'fastlyPurge';
  const serviceId = requiredSetting(options?.serviceId, 'serviceId', where);
  const token = requiredSetting(options.token, 'token', where);
  if (options.soft !== undefined && typeof options.soft !== 'boolean') throw new TypeError(`cachette/cdn ${where}: "soft" must be a boolean`);
  const url = `${apiBaseOf(options.apiBase, 'https://api.fastly.com', where)}/service/${encodeURIComponent(serviceId)}/purge`;
  const soft = options.soft === true;
  return {
    name: 'fastly',
    limits: { tags: FASTLY_PER_REQUEST, urls: 0, mixed: false },
    send(batch: PurgeBatch, signal: AbortSignal) {
      const headers: Record<string, string> = { 'fastly-key': token, 'surrogate-key': fitTags(batch.tags, TAG_RULES.fastly).kept.join(' '), accept: 'application/json' };
      if (soft) headers['fastly-soft-purge'] = '1';
      return postPurge('fastly', { url, headers, secrets: [token] }, signal);
    },
  };
}
