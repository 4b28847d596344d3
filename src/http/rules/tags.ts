/**
 * Surrogate keys (tags) for `purge({ tag })`: the tags a response carries, from its `Cache-Tag`
 * and `Surrogate-Key` fields and the `tags` option.
 *
 * They are the engine's own tags (createCache, docs/architecture.md#tags-leases-and-tiers):
 * a stored response records the current generation of each of its tags when it is written, and
 * purging a tag moves that generation on, so that every entry which recorded it is a miss from
 * then on, in every process sharing the store, on every store. Nothing lists a tag's entries:
 * storing a tagged response costs one read of its tags' generations however many entries carry
 * them, and a purge costs one write per tag. The purged entries stay in the store, unreadable,
 * until their TTL; they cannot be counted.
 */
import { MAX_TAGS } from '../../cache/tags/tag-keys.ts';

/** The most tags one stored response may carry (the engine's bound): a response with more is served, not stored. */
export const MAX_RESPONSE_TAGS = MAX_TAGS;

/** The `tags` option: tags for every stored response, or a function of the request and response. */
export type TagsOption = readonly string[] | ((request: Request, response: Response) => readonly string[] | undefined);

/**
 * The tags `response` carries, without duplicates: those its `Cache-Tag` (comma-separated) and
 * `Surrogate-Key` (space-separated) name, then the option's (what it gives that is not a
 * non-empty string is ignored).
 */
export function responseTags(request: Request, response: Response, option: TagsOption | undefined): string[] {
  const tags = new Set<string>();
  const cacheTag = response.headers.get('cache-tag');
  if (cacheTag) for (const tag of cacheTag.split(',')) if (tag.trim()) tags.add(tag.trim());
  const surrogate = response.headers.get('surrogate-key');
  if (surrogate) for (const key of surrogate.split(/\s+/)) if (key) tags.add(key);
  const extra = typeof option === 'function' ? option(request, response) : option;
  if (Array.isArray(extra)) for (const tag of extra) if (typeof tag === 'string' && tag.length > 0) tags.add(tag);
  return [...tags];
}
