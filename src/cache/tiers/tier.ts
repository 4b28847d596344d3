/**
 * The read side of the engine, by topology (docs/architecture.md#tags-leases-and-tiers):
 * one {@link Tier} is chosen when the cache is created — the remote store alone, or an L1 in
 * process memory in front of it validated on every read (`strict`) or invalidated by the server
 * (`tracking`) — instead of branches inside one class, as bentocache chooses its handlers.
 */
import type { TagGeneration } from '../../codec/envelope.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { KeyWatch } from './coherent-watches.ts';

/** The state of the tags a caller named, read before any factory runs (in the same round trip as the entry). */
export interface TagSnapshot {
  /** Each requested tag with its current generation: what a value computed now records. */
  readonly generations: readonly TagGeneration[];
  /** The requested tags on which a write lease is held: a value computed now must not be stored. */
  readonly fenced: readonly string[];
}

/** What one read found. */
export interface TierRead {
  /** The entry, when present, readable and current for every tag it records; its lifetime is the caller's to judge. */
  readonly entry: DecodedEntry | undefined;
  /** The requested tags' state; undefined when no tags were requested, or when the tier served from memory. */
  readonly snapshot: TagSnapshot | undefined;
}

/** What the tiers need from the engine: implemented by its tier-hosting role (`TierHosting`, src/cache/roles/tier-hosting.ts). */
export interface TierHost {
  /**
   * Decodes stored bytes; an unreadable entry is counted and reported as corrupt and comes back
   * undefined. They count as read from the store (`bytesRead`) unless `written`: bytes this
   * process wrote itself.
   */
  decode(key: string, bytes: Uint8Array, written?: boolean): DecodedEntry | undefined;
  /** An entry was found but a tag it records has moved on: a miss, with its own event. */
  outdated(key: string, tags: readonly string[]): void;
}

/** The read side of one topology. Store failures reject; the engine turns them into its fallbacks. */
export interface Tier {
  /** Reads `full` (the entry for `key`) and the state of `tags`, in one round trip when the store allows. */
  read(key: string, full: string, tags: readonly string[]): Promise<TierRead>;
  /** Reads several entries, in one round trip (plus one for the tags they record, if any). */
  readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>>;
  /**
   * {@link read} without a promise, offered only when the store answers synchronously (a local
   * store with the synchronous read capabilities). Store failures throw.
   */
  readNow?(key: string, full: string, tags: readonly string[]): TierRead;
  /** {@link readMany} without a promise, offered with {@link readNow}. */
  readManyNow?(keys: readonly string[], fulls: readonly string[]): Array<DecodedEntry | undefined>;
  /** The current state of `tags` alone (a refresh that must record them, a tagged set). */
  snapshot(tags: readonly string[]): Promise<TagSnapshot>;
  /**
   * A watch of the entry `full`'s next change, when this tier is told of changes by a bus that
   * will not lose one unnoticed (the coherent tier, live): a fill waiting for another process's
   * write waits on it instead of polling. Undefined otherwise.
   */
  watch?(full: string): KeyWatch | undefined;
  /** This process deletes or overwrites these keys (or tries to). */
  forget(fulls: readonly string[]): void;
  /**
   * This process writes `bytes`, an untagged entry, under `full` (after {@link forget} of it),
   * and `written` is that write: a tier that can tell when what it wrote is current may keep it
   * as its copy once it settled (the coherent tier). Optional: the others read it back.
   */
  wrote?(key: string, full: string, bytes: Uint8Array, written: Promise<unknown>): void;
  /** This process invalidated these tags. */
  tagsInvalidated(tags: readonly string[]): void;
  /** This process cleared the cache's prefix. */
  cleared(): void;
  /** Releases what the tier holds (tracking registrations). */
  close(): Promise<void>;
}

/**
 * {@link Tier.readMany} for a tier that checks each copy on its own: every key read as
 * {@link Tier.read} reads it (the reads of one tick still fold into one store call below).
 */
export async function readEach(tier: Pick<Tier, 'read'>, keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
  const found = await Promise.all(keys.map((key, i) => tier.read(key, fulls[i]!, [])));
  return found.map((read) => read.entry);
}
