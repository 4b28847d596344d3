/**
 * Where stored responses live: on the cache engine, under `u:<primary key>` (a response, or a
 * {@link VaryMarker} when the URL's responses vary) and `u:<primary key> v<epoch>.<digest>`
 * (one variant). Going through the engine gives every read and write its timeout, circuit
 * breaker and error events: a failing store is a miss, never an error at the client.
 *
 * Everything read back is checked (stored-response.ts): an entry that could not be served as
 * it is counts as corrupt, is deleted, and is reported as the engine's `corrupt` event.
 * Concurrent lookups of one entry share one read of it (shared-reads.ts); every write, delete
 * and purge made here lets go of the reads in flight for what it changed once it has settled.
 *
 * How long an entry lives on the store is derived from the response's freshness record
 * (freshness.ts, retentionMs and keptStaleMs): the engine entry's window is not a second record
 * of freshness. A soft purge stales entries through the engine (`expire`, or a soft tag
 * invalidation), atomically on the store; a lookup reads them with `cache.lookup`, which also
 * returns an entry in its grace, and judges it stale since the engine made it so (staledBy).
 */
import type { Cache } from '../../cache/create-cache.ts';
import type { ValueLookup } from '../../cache/types.ts';
import { keptStaleMs, retentionMs, staledBy } from '../rules/freshness.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { SharedReads } from './shared-reads.ts';
import { isLanguageAlias, isStoredResponse, isVaryMarker, storedResponseProblem, type LanguageAlias, type StoredResponse, type VaryMarker } from '../rules/stored-response.ts';
import { answersLanguage, contentLanguage, languageValues, preferredLanguages, sameValues, variantDigest, varyValues } from '../rules/vary.ts';

/** What a lookup found. */
export type Lookup = { kind: 'uri-miss' } | { kind: 'vary-miss'; marker: VaryMarker } | { kind: 'found'; entry: StoredResponse; storeKey: string; marker: VaryMarker | undefined };

/** What became of a write: stored, or refused by the store (a failure or timeout). */
export type WriteResult = 'stored' | 'store-failed';

/** How entries are kept. */
export interface EntryStoreOptions {
  /** How long a response is kept past its freshness so it can still be revalidated or served stale, ms. */
  retainStaleMs: number;
  /** Most variants kept per URL and vary epoch. */
  maxVariants: number;
  /** The HTTP cache's clock, which stored responses' freshness is on. */
  now: () => number;
}

const URI_MISS: Lookup = { kind: 'uri-miss' };

/** Reads and writes stored responses and their variants. */
export class EntryStore {
  /**
   * Serialises, per URL within the process, what reads and writes back what is stored for it:
   * its vary marker's updates, and every write they could overwrite.
   */
  readonly #perUrl = new KeyedQueue();
  /** The reads in flight that lookups may join. */
  readonly #reads = new SharedReads();

  constructor(
    private readonly cache: Cache,
    private readonly options: EntryStoreOptions,
  ) {}

  /** The engine key of a primary key. */
  static storeKey(primaryKey: string): string {
    return `u:${primaryKey}`;
  }

  /** Finds the response stored for `primaryKey` that matches the request's varying headers. */
  async lookup(primaryKey: string, headers: Headers): Promise<Lookup> {
    const key = EntryStore.storeKey(primaryKey);
    const read = await this.#read(key);
    const value = read?.value;
    if (isStoredResponse(value)) return (await this.#sound(value, key)) ? { kind: 'found', entry: this.#judged(value, read!), storeKey: key, marker: undefined } : URI_MISS;
    if (!isVaryMarker(value)) return URI_MISS;
    const values = varyValues(value.varyBy, headers);
    const variantKey = variantKeyOf(key, value, values);
    const variantRead = await this.#read(variantKey);
    const variant = variantRead?.value;
    if (isStoredResponse(variant) && sameValues(variant.varyValues, values)) {
      return (await this.#sound(variant, variantKey)) ? { kind: 'found', entry: this.#judged(variant, variantRead!), storeKey: variantKey, marker: value } : { kind: 'vary-miss', marker: value };
    }
    const chosen = value.varyBy.includes('accept-language') ? await this.#byLanguage(key, value, values, headers) : undefined;
    return chosen ?? { kind: 'vary-miss', marker: value };
  }

  /**
   * Language selection: a stored variant whose single Content-Language is among the languages
   * the request weights highest answers it, when it was stored for a request that asked for
   * that language alone (vary.ts, answersLanguage: checked again here, for aliases written by
   * earlier versions) and the other varying fields match too.
   */
  async #byLanguage(key: string, marker: VaryMarker, values: Array<string | null>, headers: Headers): Promise<Lookup | undefined> {
    const languages = preferredLanguages(headers.get('accept-language'));
    if (languages.length === 0) return undefined;
    const aliases = await this.cache.getMany<LanguageAlias>(languages.map((language) => variantKeyOf(key, marker, languageValues(marker.varyBy, values, language))));
    for (let i = 0; i < languages.length; i++) {
      const alias = aliases[i];
      if (!isLanguageAlias(alias)) continue;
      const variantRead = await this.#read(alias.variantKey);
      const variant = variantRead?.value;
      if (!isStoredResponse(variant) || contentLanguage(variant.headers) !== languages[i] || !answersLanguage(marker.varyBy, variant.varyValues, languages[i]!)) continue;
      const filed = languageValues(marker.varyBy, variant.varyValues, languages[i]!);
      if (!sameValues(filed, languageValues(marker.varyBy, values, languages[i]!))) continue;
      if (await this.#sound(variant, alias.variantKey)) return { kind: 'found', entry: this.#judged(variant, variantRead!), storeKey: alias.variantKey, marker };
    }
    return undefined;
  }

  /**
   * True when a stored response can be served; otherwise reports it as corrupt and deletes it.
   * The delete is awaited, so that it can never land after (and remove) the fresh copy the
   * forward this miss leads to will store.
   */
  #sound(entry: StoredResponse, storeKey: string): boolean | Promise<false> {
    const problem = storedResponseProblem(entry);
    if (problem === undefined) return true;
    this.cache.events.emit('corrupt', { key: storeKey, reason: `stored HTTP response: ${problem}` });
    return this.#changing([storeKey], this.cache.delete(storeKey)).then(() => false);
  }

  /**
   * What is stored under `key`, fresh or in its grace on the engine, from the read of it in
   * flight when there is one. A vary marker or language alias is used either way: each lives
   * until its last variant may (they are never staled).
   */
  #read(key: string): Promise<ValueLookup<unknown> | undefined> {
    return this.#reads.get(key, () => this.cache.lookup(key)) as Promise<ValueLookup<unknown> | undefined>;
  }

  /** A stored response as the decision judges it: stale since the engine made it so, when it did. */
  #judged(entry: StoredResponse, read: ValueLookup<unknown>): StoredResponse {
    return read.state === 'stale' ? staledBy(entry, read.staleMs, this.options.now()) : entry;
  }

  /** `change` of the entries under `keys`; once it settled, lookups read them again. */
  #changing<T>(keys: readonly string[], change: Promise<T>): Promise<T> {
    const forget = () => this.#reads.forget(keys);
    return change.finally(forget);
  }

  /**
   * Invalidates the tags (tags.ts), `soft` to mark their entries stale; resolves whether the
   * store took it. Any entry may carry them: once it settled, every lookup reads again.
   */
  invalidateTags(tags: readonly string[], soft: boolean): Promise<boolean> {
    return this.cache.invalidateTags(tags, { soft }).finally(() => this.#reads.forgetAll());
  }

  /**
   * Stores `entry` for `primaryKey`, recording its tags' generations (tags.ts: a purged tag
   * makes it a miss). A varying response joins the URL's current
   * marker when it varies on the same fields, and replaces it otherwise. The marker is read
   * again here, not taken from the lookup, and its updates for one URL run one at a time: two
   * first variants of a cold URL then share one marker instead of orphaning each other. A URL
   * at its variant cap drops its oldest variants for the new one: values nobody asks for again
   * (junk sent to fill the cap) age out instead of keeping real ones from being stored.
   */
  write(primaryKey: string, entry: StoredResponse): Promise<WriteResult> {
    const key = EntryStore.storeKey(primaryKey);
    const kept = { ttl: retentionMs(entry, entry.responseTime, this.options.retainStaleMs), grace: keptStaleMs(entry, this.options.retainStaleMs) };
    if (entry.vary.length > 0) return this.#perUrl.run(key, () => this.#writeVariant(key, entry, kept));
    return this.#perUrl.run(key, async () => ((await this.#changing([key], this.cache.set(key, entry, { ...kept, tags: entry.tags }))) ? 'stored' : 'store-failed'));
  }

  async #writeVariant(key: string, entry: StoredResponse, kept: Kept): Promise<WriteResult> {
    const now = Date.now(); // the store's own clock: it decides expiry
    const current = await this.cache.get(key);
    const reuse = isVaryMarker(current) && sameValues(current.varyBy, entry.vary) ? current : undefined;
    const digest = variantDigest(entry.varyValues);
    const live = reuse ? liveVariants(reuse, now).filter(([stored]) => stored !== digest) : [];
    // Oldest first: the list is kept in the order variants were stored.
    const evicted = live.splice(0, Math.max(0, live.length - this.options.maxVariants + 1));
    // Its grace included: a variant a soft purge staled lives on for that long.
    const until = now + kept.ttl + kept.grace;
    const marker: VaryMarker = {
      varyBy: entry.vary,
      epoch: reuse?.epoch ?? Math.random().toString(36).slice(2, 10),
      until: Math.max(reuse?.until ?? 0, until),
      variants: [...live, [digest, until]],
    };
    const variantKey = variantKeyOf(key, marker, entry.varyValues);
    // The variant carries the tags; the marker and a language alias lead only to it.
    const writes: Array<{ key: string; value: StoredResponse | VaryMarker | LanguageAlias; ttl: number; grace?: number; tags?: readonly string[] }> = [
      { key, value: marker, ttl: Math.max(1, marker.until - now), grace: 0 },
      { key: variantKey, value: entry, ...kept, tags: entry.tags },
    ];
    const language = entry.vary.includes('accept-language') ? contentLanguage(entry.headers) : undefined;
    if (language !== undefined && answersLanguage(entry.vary, entry.varyValues, language)) {
      writes.push({ key: variantKeyOf(key, marker, languageValues(entry.vary, entry.varyValues, language)), value: { variantKey }, ttl: kept.ttl + kept.grace, grace: 0 });
    }
    const stored = await this.#changing(
      writes.map((write) => write.key),
      this.cache.setMany(writes),
    );
    // A lookup goes straight to a variant's key: an evicted one must be gone from the store, not only from the list.
    if (evicted.length > 0) {
      const evictedKeys = evicted.map(([evictedDigest]) => variantKeyFor(key, marker, evictedDigest));
      await this.#changing(evictedKeys, this.cache.delete(evictedKeys));
    }
    return stored ? 'stored' : 'store-failed';
  }

  /**
   * A soft purge of URLs: every response stored for the primary keys (each live variant
   * included) is made stale now by the engine's `expire`, keeping its tags and its validators,
   * so the next request revalidates it (a 304 refreshes it) or is served it under
   * stale-while-revalidate; the store keeps it for its grace (its stale windows, or
   * `retainStale`) counted from now. Resolves with how many responses were marked (one marked
   * already is not counted again).
   *
   * `expire` rewrites each entry in place, atomically on the store (a script on the
   * Redis-protocol stores, one step on memory and SQLite): a response that any process sharing
   * the store writes for the URL meanwhile is never overwritten by the older one (it is either
   * marked too, or written after the purge). Only a vary marker is read first, for the variants
   * it lists.
   */
  async markStale(primaryKeys: readonly string[]): Promise<number> {
    const keys: string[] = [];
    for (const primaryKey of primaryKeys) {
      const key = EntryStore.storeKey(primaryKey);
      const value = await this.cache.get(key);
      if (isStoredResponse(value)) keys.push(key);
      else if (isVaryMarker(value)) for (const [digest] of liveVariants(value, Date.now())) keys.push(variantKeyFor(key, value, digest));
    }
    return keys.length === 0 ? 0 : this.#changing(keys, this.cache.expire(keys));
  }

  /** Deletes what is stored for the primary keys (every variant included); resolves with how many existed. */
  remove(primaryKeys: readonly string[]): Promise<number> {
    const keys = primaryKeys.map(EntryStore.storeKey);
    return this.#changing(keys, this.cache.delete(keys));
  }
}

/** The engine lifetimes of a stored response: its ttl and grace (freshness.ts). */
interface Kept {
  ttl: number;
  grace: number;
}

function variantKeyOf(key: string, marker: VaryMarker, values: ReadonlyArray<string | null>): string {
  return variantKeyFor(key, marker, variantDigest(values));
}

function variantKeyFor(key: string, marker: VaryMarker, digest: string): string {
  return `${key} v${marker.epoch}.${digest}`;
}

/** The variants of a marker that may still be stored at `now` (markers from before the cap list none). */
function liveVariants(marker: VaryMarker, now: number): Array<[string, number]> {
  const list = Array.isArray(marker.variants) ? marker.variants : [];
  return list.filter((v): v is [string, number] => Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'number' && v[1] > now);
}
