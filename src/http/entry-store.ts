/**
 * Where stored responses live: on the cache engine, under `u:<primary key>` (a response, or a
 * {@link VaryMarker} when the URL's responses vary) and `u:<primary key> v<epoch>.<digest>`
 * (one variant). Going through the engine gives every read and write its timeout, circuit
 * breaker and error events: a failing store is a miss, never an error at the client.
 */
import type { Cache } from '../cache/create-cache.ts';
import { sameValues, variantDigest, varyValues } from './key.ts';
import { isStoredResponse, isVaryMarker, type StoredResponse, type VaryMarker } from './stored-response.ts';
import type { TagIndex } from './tag-index.ts';

/** What a lookup found. */
export type Lookup =
  | { kind: 'uri-miss' }
  | { kind: 'vary-miss'; marker: VaryMarker }
  | { kind: 'found'; entry: StoredResponse; storeKey: string; marker: VaryMarker | undefined };

const URI_MISS: Lookup = { kind: 'uri-miss' };

/** Reads and writes stored responses and their variants. */
export class EntryStore {
  constructor(
    private readonly cache: Cache,
    private readonly tags: TagIndex,
    /** How long a response is kept past its freshness so it can still be revalidated or served stale, ms. */
    private readonly retainStaleMs: number,
  ) {}

  /** The engine key of a primary key. */
  static storeKey(primaryKey: string): string {
    return `u:${primaryKey}`;
  }

  /** Finds the response stored for `primaryKey` that matches the request's varying headers. */
  async lookup(primaryKey: string, headers: Headers): Promise<Lookup> {
    const key = EntryStore.storeKey(primaryKey);
    const value = await this.cache.get(key);
    if (isStoredResponse(value)) return { kind: 'found', entry: value, storeKey: key, marker: undefined };
    if (!isVaryMarker(value)) return URI_MISS;
    const values = varyValues(value.varyBy, headers);
    const variantKey = `${key} v${value.epoch}.${variantDigest(values)}`;
    const variant = await this.cache.get(variantKey);
    if (isStoredResponse(variant) && sameValues(variant.varyValues, values)) return { kind: 'found', entry: variant, storeKey: variantKey, marker: value };
    return { kind: 'vary-miss', marker: value };
  }

  /**
   * Stores `entry` for `primaryKey`. A varying response reuses the URL's marker when it varies
   * on the same fields (so sibling variants stay reachable) and replaces it otherwise.
   */
  async write(primaryKey: string, entry: StoredResponse, marker: VaryMarker | undefined): Promise<void> {
    const key = EntryStore.storeKey(primaryKey);
    const retainMs = Math.max(1, entry.lifetime - entry.initialAge) + Math.max(entry.swr, entry.sie, this.retainStaleMs);
    if (entry.vary.length === 0) {
      await this.cache.set(key, entry, { ttl: retainMs });
    } else {
      const until = Date.now() + retainMs; // the store's own clock: it decides expiry
      const reuse = marker !== undefined && sameValues(marker.varyBy, entry.vary);
      const next: VaryMarker = reuse
        ? { ...marker, until: Math.max(marker.until, until) }
        : { varyBy: entry.vary, epoch: Math.random().toString(36).slice(2, 10), until };
      const variantKey = `${key} v${next.epoch}.${variantDigest(entry.varyValues)}`;
      await this.cache.setMany<StoredResponse | VaryMarker>([
        { key, value: next, ttl: Math.max(1, next.until - Date.now()) },
        { key: variantKey, value: entry, ttl: retainMs },
      ]);
    }
    if (entry.tags.length > 0) await this.tags.add(entry.tags, key, retainMs);
  }

  /** Deletes what is stored for the primary keys (every variant included); resolves with how many existed. */
  remove(primaryKeys: readonly string[]): Promise<number> {
    return this.cache.delete(primaryKeys.map(EntryStore.storeKey));
  }
}
