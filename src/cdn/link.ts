/**
 * What the HTTP layer reaches of a cache's CDN forwarding beyond the Cache interface: its purges
 * by URL (a tag purge goes through `cache.invalidateTags`, which forwards it itself) and the
 * count of tags left out of a CDN's tag field. Kept beside the engine, not on the Cache type, so
 * that none of it becomes public API (as src/cache/engine-view.ts does for adapters).
 */

/** A cache's side of the CDN hooks. */
export interface CdnLink {
  /** Forwards purges of these URLs to the cache's CDNs, if it has any (see forwarding.ts). */
  purgeUrls(urls: readonly string[]): Promise<void> | undefined;
  /** Counts tags left out of a CDN's tag field (`stats().cdnTagsDropped`). */
  tagsDropped(count: number): void;
}

const links = new WeakMap<object, CdnLink>();

/** Records `cache`'s link; the engine calls it once, when it is built. */
export function linkCdn(cache: object, link: CdnLink): void {
  links.set(cache, link);
}

/** `cache`'s link, or undefined for a cache the engine did not build. */
export function cdnLink(cache: object): CdnLink | undefined {
  return links.get(cache);
}
