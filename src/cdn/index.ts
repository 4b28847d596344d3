/**
 * `cachette/cdn`: purges forwarded to the CDN in front of the cache (docs/cdn.md). Give the
 * forwarders to `createCache({ cdn: [...] })`; every committed write (`beginWrite(tags)` then
 * `commit()`), `invalidateTags` and HTTP purge is then sent to each, retried within bounds.
 */
export { cloudflarePurge, CLOUDFLARE_PER_REQUEST, type CloudflarePurgeOptions } from './cloudflare.ts';
export { fastlyPurge, FASTLY_PER_REQUEST, type FastlyPurgeOptions } from './fastly.ts';
export { vercelPurge, VERCEL_PER_REQUEST, type VercelPurgeOptions } from './vercel.ts';
export { webhookPurge, WEBHOOK_PER_REQUEST, type WebhookPurgeOptions } from './webhook.ts';
export type { CdnRetryOptions } from './forwarding.ts';
export { TAG_RULES, type CdnTagHeader, type DroppedTags, type TagRules } from './tag-rules.ts';
export { CdnPurgeError, type CdnPurger, type PurgeBatch, type PurgeLimits } from './types.ts';
