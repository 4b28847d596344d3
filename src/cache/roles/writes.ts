import type { TagGeneration, TextEnvelope } from '../../codec/envelope.ts';
import { TextEntry } from '../../store/text-entry.ts';
import type { StoreEntry } from '../../store/types.ts';
import type { Clock } from '../clock.ts';
import type { EntryCodec } from '../entry-codec.ts';
import { ValueTooLargeError } from '../errors.ts';
import type { CacheEvents, CacheStats } from '../events.ts';
import { expireEntries } from '../expire.ts';
import { jittered, keptFor, type Lifetimes } from './lifetimes.ts';
import { withVersion } from './versioned.ts';
import type { GenerationLayer } from '../path/generations.ts';
import type { Tier } from '../tiers/tier.ts';
import type { SetManyEntry } from '../types.ts';
import type { ResolvedOptions } from '../options.ts';
import type { EngineContext } from './context.ts';
import type { Reads } from './reads.ts';
import type { StoreReports } from './reports.ts';

/** Entries encoded and sent per slice of a large setMany, between which the event loop runs. */
const SET_MANY_SLICE = 256;

/** An entry written with no tags. */
export const NO_GENERATIONS: readonly TagGeneration[] = Object.freeze([]);

/** One entry a fill stores: what {@link Writes.write} takes. */
export interface EntryWrite {
  readonly key: string;
  readonly full: string;
  readonly value: unknown;
  readonly lifetimes: Lifetimes;
  readonly generations: readonly TagGeneration[];
  readonly version: string | number | undefined;
  /** How long the factory took, on the cache's clock, kept for `xfetch` (undefined: not kept). */
  readonly computeMs?: number | undefined;
}

/** One entry of `setMany` as the front checked it: its store key, lifetimes and tags. */
export interface PreparedEntry {
  readonly full: string;
  readonly lifetimes: Lifetimes;
  readonly tags: readonly string[];
}

/**
 * The write role (docs/architecture.md#the-engine): encodes values into envelopes (a value
 * above `maxValueBytes` is reported and not stored), sends them down the store path, drops this
 * process's L1 copies of what it changes, counts the bytes written and turns a store failure
 * into the documented fallback. The front's `set`, `setMany`, `incr`, `delete`, `expire` and
 * `clear` end here, and so do the fill handler's writes.
 */
export class Writes {
  readonly #path: GenerationLayer;
  readonly #tier: Tier;
  readonly #codec: EntryCodec;
  readonly #clock: Clock;
  readonly #counters: CacheStats;
  readonly #events: CacheEvents;
  readonly #reports: StoreReports;
  readonly #ctx: EngineContext;
  readonly #reads: Reads;

  constructor(ctx: EngineContext, reads: Reads) {
    this.#ctx = ctx;
    this.#path = ctx.path;
    this.#tier = ctx.tier;
    this.#codec = ctx.codec;
    this.#clock = ctx.clock;
    this.#counters = ctx.counters;
    this.#events = ctx.events;
    this.#reports = ctx.reports;
    this.#reads = reads;
  }

  /** The cache's options (what a fill's write draws its jitter and negative ttl from). */
  get options(): ResolvedOptions {
    return this.#ctx.options;
  }

  /** `cache.set`, its arguments checked by the front; `ttlJitter` is drawn here. */
  set<T>(key: string, full: string, value: T, asked: Lifetimes, tags: readonly string[]): Promise<boolean> {
    const lifetimes = jittered(asked);
    if (tags.length > 0) return this.#setTagged(key, full, value, lifetimes, tags);
    let encoded: Uint8Array | TextEnvelope | undefined;
    try {
      encoded = this.#encodeOne(key, value, lifetimes, NO_GENERATIONS);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#send(full, encoded, lifetimes, key);
  }

  /**
   * A tagged set records the generations current now. During a write in progress on one of
   * the tags the value may predate the write's commit: it is not stored (false, a `fenced` event).
   */
  async #setTagged<T>(key: string, full: string, value: T, lifetimes: Lifetimes, tags: readonly string[]): Promise<boolean> {
    const snapshot = await this.#reads.snapshot(tags);
    if (snapshot === undefined) return false;
    if (snapshot.fenced.length > 0) {
      this.fenced(key, snapshot.fenced);
      return false;
    }
    return this.#send(full, this.#encodeOne(key, value, lifetimes, snapshot.generations), lifetimes);
  }

  /**
   * {@link #encode} for `cache.set`: as a TextEnvelope (its bytes not made yet) when the path
   * takes one entry whole (Store.setEntry: the valkey stores write its parts into the command).
   */
  #encodeOne(key: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[]): Uint8Array | TextEnvelope | undefined {
    return this.#encodeAt(key, value, this.#clock.now(), lifetimes, generations, this.#path.setEntry !== undefined);
  }

  /**
   * Stores an encoded entry (undefined: too large, reported already) and counts its bytes;
   * `untagged`: the key of an entry with no tags, which the tier may keep once written (a text
   * entry's bytes are made for it then: the same buffer the store's write would make).
   */
  #send(full: string, encoded: Uint8Array | TextEnvelope | undefined, lifetimes: Lifetimes, untagged?: string): Promise<boolean> {
    this.#tier.forget([full]);
    if (encoded === undefined) return Promise.resolve(false);
    const ttlMs = storeTtl(lifetimes);
    // Counted once written: a text entry's size is exact by then (src/store/text-entry.ts).
    const sent = encoded instanceof Uint8Array ? this.#path.set(full, encoded, ttlMs) : this.#path.setEntry!(new TextEntry(full, encoded, ttlMs));
    if (untagged !== undefined && this.#tier.wrote) this.#tier.wrote(untagged, full, encoded instanceof Uint8Array ? encoded : encoded.bytes(), sent);
    return sent.then(
      () => {
        this.#counters.bytesWritten += encoded instanceof Uint8Array ? encoded.length : encoded.size;
        return true;
      },
      (error: unknown) => this.#reports.fallback(error, 'set', full, undefined, false),
    );
  }

  /** `cache.setMany` of `entries`, each checked by the front into `prepared` (same order). */
  async setMany<T>(entries: ReadonlyArray<SetManyEntry<T>>, prepared: readonly PreparedEntry[]): Promise<boolean> {
    // Tagged entries record the generations current now: one read for every tag of the batch.
    let tagged = false;
    for (const one of prepared) if (one.tags.length > 0) tagged = true;
    const snapshot = tagged ? await this.#reads.snapshot([...new Set(prepared.flatMap((one) => one.tags))]) : undefined;
    const current = new Map(snapshot?.generations.map((recorded) => [recorded.tag, recorded]));
    const fenced = new Set(snapshot?.fenced);
    this.#tier.forget(prepared.map((one) => one.full));
    let stored = true;
    const sends: Array<Promise<boolean>> = [];
    for (let start = 0; start < entries.length; start += SET_MANY_SLICE) {
      // A large batch is encoded (and compressed) slice by slice, letting the event loop run
      // between slices instead of stalling every other request for the whole batch.
      if (start > 0) await yieldToEventLoop();
      const slice: StoreEntry[] = [];
      // One time for the slice: its entries are written together.
      const now = this.#clock.now();
      for (let i = start; i < Math.min(start + SET_MANY_SLICE, entries.length); i++) {
        const { full, tags } = prepared[i]!;
        const lifetimes = jittered(prepared[i]!.lifetimes);
        // Tags of unknown state (the store failed) or under a write lease: not stored.
        if (tags.length > 0 && (snapshot === undefined || tags.some((tag) => fenced.has(tag)))) {
          stored = false;
          continue;
        }
        const generations = tags.length === 0 ? NO_GENERATIONS : tags.map((tag) => current.get(tag)!);
        const encoded = this.#encodeAt(entries[i]!.key, entries[i]!.value, now, lifetimes, generations, true);
        if (encoded === undefined) {
          stored = false;
          continue;
        }
        const ttlMs = storeTtl(lifetimes);
        slice.push(encoded instanceof Uint8Array ? { key: full, value: encoded, ttlMs } : new TextEntry(full, encoded, ttlMs));
      }
      if (slice.length === 0) continue;
      sends.push(
        this.#path.setMany(slice).then(
          () => {
            // Counted once written: a text entry's size is exact by then (src/store/text-entry.ts).
            this.#counters.bytesWritten += writtenBytes(slice);
            return true;
          },
          (error: unknown) =>
            this.#reports.fallback(
              error,
              'setMany',
              slice.map((entry) => entry.key),
              undefined,
              false,
            ),
        ),
      );
    }
    // One slice (the usual batch) is one send: its result needs no Promise.all.
    if (sends.length === 1) return (await sends[0]!) && stored;
    const results = await Promise.all(sends);
    return stored && results.every(Boolean);
  }

  /**
   * A fill's write: encodes the value with its generations (throwing a TypeError when it cannot
   * be encoded) and starts storing it; the promise settles when the write has (it never rejects).
   * Its lifetimes are stored as they are: a fill draws its jitter before (startWrite).
   */
  write(write: EntryWrite): Promise<unknown> {
    const { full, lifetimes } = write;
    this.#tier.forget([full]);
    const bytes = this.#encode(write.key, withVersion(write.value, write.version, write.computeMs), lifetimes, write.generations);
    if (bytes === undefined) return Promise.resolve(false);
    return this.#path.set(full, bytes, storeTtl(lifetimes)).then(
      () => {
        this.#counters.bytesWritten += bytes.length;
      },
      (error: unknown) => this.#reports.backgroundFailure(error, 'set', full),
    );
  }

  /** {@link write} of several entries in one store call (an entry that cannot be encoded throws before any is sent). */
  writeMany(writes: readonly EntryWrite[]): Promise<unknown> {
    this.#tier.forget(writes.map((write) => write.full));
    const entries: StoreEntry[] = [];
    let size = 0;
    for (const write of writes) {
      const bytes = this.#encode(write.key, withVersion(write.value, write.version, write.computeMs), write.lifetimes, write.generations);
      if (bytes === undefined) continue;
      size += bytes.length;
      entries.push({ key: write.full, value: bytes, ttlMs: storeTtl(write.lifetimes) });
    }
    if (entries.length === 0) return Promise.resolve(false);
    return this.#path.setMany(entries).then(
      () => {
        this.#counters.bytesWritten += size;
      },
      (error: unknown) =>
        this.#reports.backgroundFailure(
          error,
          'setMany',
          entries.map((entry) => entry.key),
        ),
    );
  }

  /** Counts and reports a fill or a set that found a write lease on these tags (its value is not stored). */
  fenced(key: string, tags: readonly string[]): void {
    this.#counters.fenced++;
    if (this.#events.listens('fenced')) this.#events.emit('fenced', { key, tags });
  }

  /** `cache.incr` of the counter under `full`; `ttlMs` applies when it is created. */
  incr(full: string, by: number, ttlMs: number | undefined): Promise<number | undefined> {
    return this.#path.incr(full, by, ttlMs).then(undefined, (error: unknown) => this.#reports.fallback(error, 'incr', full, undefined, undefined));
  }

  /** `cache.delete` of `fulls` (at least one), this process's L1 copies dropped first. */
  delete(fulls: readonly string[]): Promise<number> {
    this.#tier.forget(fulls);
    return this.#counted(this.#path.delete(fulls), 'delete', fulls);
  }

  /** `cache.expire` of `fulls` (at least one), this process's L1 copies dropped first. */
  expire(fulls: readonly string[]): Promise<number> {
    this.#tier.forget(fulls);
    return this.#counted(expireEntries(this.#path, fulls, this.#clock.now()), 'expire', fulls);
  }

  /** How many entries a change of `fulls` changed; a store failure counts 0. */
  #counted(sent: Promise<number>, operation: string, fulls: readonly string[]): Promise<number> {
    return sent.then(undefined, (error: unknown) => this.#reports.fallback(error, operation, fulls, undefined, 0));
  }

  /** `cache.clear`: every entry under the cache's prefix. */
  async clear(): Promise<void> {
    const { options } = this.#ctx;
    if (!this.#path.clear) throw new TypeError(`cachette: the "${options.store.name}" store cannot clear by prefix`);
    const prefix = options.keyPrefix;
    this.#tier.cleared();
    await this.#path.clear(prefix).catch((error: unknown) => this.#reports.fallback(error, 'clear', prefix, undefined, undefined));
  }

  /** Encodes a value, or reports it as too large and returns undefined (served, not stored). */
  #encode(key: string, value: unknown, lifetimes: Lifetimes, generations: readonly TagGeneration[]): Uint8Array | undefined {
    return this.#encodeAt(key, value, this.#clock.now(), lifetimes, generations, false) as Uint8Array | undefined;
  }

  /**
   * {@link #encode} at `now`; with `parts`, an envelope whose payload is ASCII text comes back
   * as a TextEnvelope, its bytes not made yet (EntryCodec.encodeParts).
   */
  #encodeAt(key: string, value: unknown, now: number, lifetimes: Lifetimes, generations: readonly TagGeneration[], parts: boolean): Uint8Array | TextEnvelope | undefined {
    const codec = this.#codec;
    try {
      return parts ? codec.encodeParts(key, value, now, lifetimes.freshFor, lifetimes.staleFor, generations) : codec.encode(key, value, now, lifetimes.freshFor, lifetimes.staleFor, generations);
    } catch (error) {
      if (!(error instanceof ValueTooLargeError)) throw error;
      this.#counters.tooLarge++;
      this.#events.emit('error', { source: 'encode', operation: 'set', keys: [key], error });
      if (this.#ctx.options.strict) throw error;
      return undefined;
    }
  }
}

/** The store-side TTL: fresh plus grace (or the stale-if-error window), so stale entries survive it. */
export function storeTtl(lifetimes: Lifetimes): number | undefined {
  const total = lifetimes.freshFor + keptFor(lifetimes);
  return Number.isFinite(total) ? Math.max(1, Math.ceil(total)) : undefined;
}

/** The bytes of `entries`, a text entry's without making them. */
function writtenBytes(entries: readonly StoreEntry[]): number {
  let bytes = 0;
  for (const entry of entries) bytes += entry instanceof TextEntry ? entry.size : entry.value.length;
  return bytes;
}

/** Lets timers and I/O run before continuing (setTimeout exists on every runtime). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
