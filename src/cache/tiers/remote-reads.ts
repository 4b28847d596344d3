import type { TagGeneration } from '../../codec/envelope.ts';
import type { GenerationRead, GenerationReadResult, Store, TagKeys } from '../../store/types.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import { tagKeys } from '../key-space.ts';
import { newEpoch } from '../tags/tag-keys.ts';
import type { TagSnapshot, TierHost, TierRead } from './tier.ts';

/** A copy the caller already holds: its first stored bytes, and what they decoded to. */
export interface KnownCopy {
  readonly prefix: Uint8Array;
  readonly entry: DecodedEntry;
}

/** What a remote read found, with the bytes it received (none when the known copy was confirmed). */
export interface RemoteRead extends TierRead {
  /** The stored bytes received; undefined when absent, or when the server confirmed the known copy. */
  readonly bytes: Uint8Array | undefined;
  /** The generation keys read, for a tier that must watch them (tracking). */
  readonly counters: readonly string[];
}

/**
 * Reads from the remote store and checks tags, shared by every tier: an untagged read is one
 * plain get (folded into the tick's MGET); a tagged read, or the validation of a known copy, is
 * one {@link Store.readWithGenerations} that returns the entry (or "unchanged") and the tags'
 * state together. An entry that records tags the caller did not name costs one more read for
 * those. Nothing here reads a clock: an entry is current when every generation it recorded
 * equals the current one; a missing counter is recreated at a random epoch, which no entry
 * recorded, so an evicted counter can only cause misses.
 */
export class RemoteReads {
  /**
   * True when the path answers reads synchronously (a local store offering getSync, getManySync
   * and readWithGenerationsSync): the `*Now` methods may then be used instead of the promises.
   */
  readonly synchronous: boolean;
  /** Tag keys by tag, so that a hot tag's two key strings are built once, not on every read. */
  readonly #tagKeys = new Map<string, TagKeys>();

  constructor(
    private readonly path: Store,
    private readonly prefix: string,
    private readonly host: TierHost,
  ) {
    this.synchronous = typeof path.getSync === 'function' && typeof path.getManySync === 'function' && typeof path.readWithGenerationsSync === 'function';
  }

  /** The store keys of `tag`. */
  keysOf(tag: string): TagKeys {
    let keys = this.#tagKeys.get(tag);
    if (keys === undefined) {
      // Bounded: a cache naming tags without end (one per user, say) rebuilds the strings instead.
      if (this.#tagKeys.size >= MAX_KEPT_TAG_KEYS) this.#tagKeys.clear();
      keys = tagKeys(this.prefix, tag);
      this.#tagKeys.set(tag, keys);
    }
    return keys;
  }

  /**
   * Reads `full`. `tags` are the caller's (their state becomes the snapshot); `alsoCheck` are
   * more tags read only to validate a known copy; `known` lets the server answer "unchanged".
   */
  read(key: string, full: string, tags: readonly string[], known?: KnownCopy, alsoCheck?: readonly string[]): Promise<RemoteRead> {
    if (tags.length > 0 || known !== undefined) return this.#readTagged(key, full, tags, known, alsoCheck);
    // The common untagged get: a then-chain (no async frame), one plain get folded into the tick's MGET.
    return this.path.get(full).then((bytes) => {
      const entry = bytes === undefined ? undefined : this.host.decode(key, bytes);
      if (entry === undefined || entry.tags.length === 0) return { entry, snapshot: undefined, bytes, counters: NONE };
      return this.#checkRecorded(key, { entry, snapshot: undefined, bytes, counters: NONE, current: undefined });
    });
  }

  /** {@link read} of the caller's tags, synchronously (only when {@link synchronous}). */
  readNow(key: string, full: string, tags: readonly string[]): RemoteRead {
    if (tags.length === 0) {
      const bytes = this.path.getSync!(full);
      const entry = bytes === undefined ? undefined : this.host.decode(key, bytes);
      if (entry === undefined || entry.tags.length === 0) return { entry, snapshot: undefined, bytes, counters: NONE };
      return this.#checkRecordedNow(key, { entry, snapshot: undefined, bytes, counters: NONE, current: undefined });
    }
    const request = this.#entryRequest(full, tags, undefined, undefined);
    const found = this.#found(key, tags, undefined, request, this.path.readWithGenerationsSync!(request));
    return found.entry === undefined ? found : this.#checkRecordedNow(key, found);
  }

  #readTagged(key: string, full: string, tags: readonly string[], known: KnownCopy | undefined, alsoCheck: readonly string[] | undefined): Promise<RemoteRead> {
    const request = this.#entryRequest(full, tags, known, alsoCheck);
    return this.path.readWithGenerations!(request).then((result) => {
      const found = this.#found(key, tags, known, request, result);
      return found.entry === undefined ? found : this.#checkRecorded(key, found);
    });
  }

  /** Several entries in one round trip, and the tags they record in one more (only when some do). */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const entries = this.#decodeAll(keys, await this.path.getMany(fulls));
    const recorded = recordedTags(entries);
    if (recorded.length === 0) return entries;
    return this.#validateAll(keys, entries, currentOf(recorded, await this.path.readWithGenerations!(this.#tagRequest(recorded))));
  }

  /** {@link readMany}, synchronously (only when {@link synchronous}). */
  readManyNow(keys: readonly string[], fulls: readonly string[]): Array<DecodedEntry | undefined> {
    const entries = this.#decodeAll(keys, this.path.getManySync!(fulls));
    const recorded = recordedTags(entries);
    if (recorded.length === 0) return entries;
    return this.#validateAll(keys, entries, currentOf(recorded, this.path.readWithGenerationsSync!(this.#tagRequest(recorded))));
  }

  /** The current state of `tags` alone. */
  async snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return snapshotOf(tags, currentOf(tags, await this.path.readWithGenerations!(this.#tagRequest(tags))));
  }

  /** The read of one entry with the state of `tags` (and of `alsoCheck`, for a known copy). */
  #entryRequest(full: string, tags: readonly string[], known: KnownCopy | undefined, alsoCheck: readonly string[] | undefined): EntryRequest {
    const names = alsoCheck && alsoCheck.length > 0 ? [...new Set([...tags, ...alsoCheck])] : tags;
    const tagKeyList = names.map((tag) => this.keysOf(tag));
    return { keys: [full], knownPrefixes: known ? [known.prefix] : undefined, tags: tagKeyList, epoch: newEpoch(), names };
  }

  #tagRequest(tags: readonly string[]): GenerationRead {
    return { keys: NONE, tags: tags.map((tag) => this.keysOf(tag)), epoch: newEpoch() };
  }

  /** What an entry request found: the entry (its own recorded tags not checked yet) and the state of the tags read. */
  #found(key: string, tags: readonly string[], known: KnownCopy | undefined, request: EntryRequest, result: GenerationReadResult): Found {
    const slot = result.values[0];
    const bytes = slot === 'unchanged' ? undefined : slot;
    const entry = slot === 'unchanged' ? known!.entry : bytes === undefined ? undefined : this.host.decode(key, bytes);
    const current = currentOf(request.names, result);
    const snapshot = tags.length === 0 ? undefined : snapshotOf(tags, current);
    return { entry, snapshot, bytes, counters: request.tags.map((keys) => keys.generation), current };
  }

  /**
   * Validates the entry of `found` against every tag it records, reading those not read yet
   * (a promise only then: the common entry records just the tags it was read with).
   */
  #checkRecorded(key: string, found: Found): RemoteRead | Promise<RemoteRead> {
    const lacking = lackingTags(found);
    if (lacking.length === 0) return this.#checked(key, found, lacking, undefined);
    return this.path.readWithGenerations!(this.#tagRequest(lacking)).then((more) => this.#checked(key, found, lacking, more));
  }

  #checkRecordedNow(key: string, found: Found): RemoteRead {
    const lacking = lackingTags(found);
    const more = lacking.length === 0 ? undefined : this.path.readWithGenerationsSync!(this.#tagRequest(lacking));
    return this.#checked(key, found, lacking, more);
  }

  /** `found` with its entry validated, given the state of the `lacking` tags read afterwards. */
  #checked(key: string, found: Found, lacking: readonly string[], more: GenerationReadResult | undefined): RemoteRead {
    let all = found.current;
    let counters = found.counters;
    if (more !== undefined) {
      const extra = currentOf(lacking, more);
      all = all ? new Map([...all, ...extra]) : extra;
      counters = [...counters, ...lacking.map((tag) => this.keysOf(tag).generation)];
    }
    return { entry: this.#validate(key, found.entry!, all!), snapshot: found.snapshot, bytes: found.bytes, counters };
  }

  #decodeAll(keys: readonly string[], raw: ReadonlyArray<Uint8Array | undefined>): Array<DecodedEntry | undefined> {
    const entries = new Array<DecodedEntry | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const bytes = raw[i];
      entries[i] = bytes === undefined ? undefined : this.host.decode(keys[i]!, bytes);
    }
    return entries;
  }

  #validateAll(keys: readonly string[], entries: Array<DecodedEntry | undefined>, current: Map<string, CurrentTag>): Array<DecodedEntry | undefined> {
    return entries.map((entry, i) => entry && this.#validate(keys[i]!, entry, current));
  }

  #validate(key: string, entry: DecodedEntry, current: Map<string, CurrentTag>): DecodedEntry | undefined {
    let moved: string[] | undefined;
    for (const recorded of entry.tags) {
      if (current.get(recorded.tag)?.generation !== recorded.generation) (moved ??= []).push(recorded.tag);
    }
    if (moved === undefined) return entry;
    this.host.outdated(key, moved);
    return undefined;
  }
}

/** Tag keys kept by {@link RemoteReads.keysOf} before it starts over. */
const MAX_KEPT_TAG_KEYS = 4096;

/** A read of one entry and tags, with the names of those tags. */
interface EntryRequest extends GenerationRead {
  readonly names: readonly string[];
}

/** A read before the entry's own recorded tags are checked: the state of the tags read so far. */
interface Found extends RemoteRead {
  readonly current: Map<string, CurrentTag> | undefined;
}

/** The tags `found`'s entry records that were not read with it. */
function lackingTags(found: Found): string[] {
  const lacking: string[] = [];
  for (const recorded of found.entry!.tags) if (!found.current?.has(recorded.tag)) lacking.push(recorded.tag);
  return lacking;
}

/** Every tag the entries record, once. */
function recordedTags(entries: ReadonlyArray<DecodedEntry | undefined>): string[] {
  const recorded = new Set<string>();
  for (const entry of entries) if (entry) for (const { tag } of entry.tags) recorded.add(tag);
  return [...recorded];
}

/** A tag's state, by name. */
interface CurrentTag {
  generation: number;
  fenced: boolean;
}

const NONE: readonly string[] = Object.freeze([]);

function currentOf(names: readonly string[], result: GenerationReadResult): Map<string, CurrentTag> {
  const current = new Map<string, CurrentTag>();
  for (let i = 0; i < names.length; i++) current.set(names[i]!, result.tags[i]!);
  return current;
}

function snapshotOf(tags: readonly string[], current: Map<string, CurrentTag>): TagSnapshot {
  const generations: TagGeneration[] = [];
  const fenced: string[] = [];
  for (const tag of tags) {
    const state = current.get(tag)!;
    generations.push({ tag, generation: state.generation });
    if (state.fenced) fenced.push(tag);
  }
  return { generations, fenced };
}
