import type { TagGeneration } from '../../codec/envelope.ts';
import type { GenerationRead, GenerationReadResult, TagKeys, TagState } from '../../store/types.ts';
import type { DecodedEntry } from '../entry-codec.ts';
import type { GenerationLayer } from '../path/generations.ts';
import { tagKeys } from '../key-space.ts';
import { counterValue } from '../../store/layout/counter.ts';
import { newEpoch } from '../tags/tag-keys.ts';
import { RecordedTags } from './recorded-tags.ts';
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
  /** What each entry recorded when last read plainly here: a plain read asks for those tags with it. */
  readonly #recorded = new RecordedTags();

  constructor(
    private readonly path: GenerationLayer,
    private readonly prefix: string,
    private readonly host: TierHost,
  ) {
    this.synchronous = typeof path.getSync === 'function' && typeof path.getManySync === 'function' && typeof path.readWithGenerationsSync === 'function';
  }

  /** Decodes bytes this process wrote under `key` (undefined when unreadable, reported as corrupt; not counted as read). */
  decodeWritten(key: string, bytes: Uint8Array): DecodedEntry | undefined {
    return this.host.decode(key, bytes, true);
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
    if (known !== undefined) {
      const request = this.#entryRequest(full, tags, known, alsoCheck);
      return this.path.readWithGenerations!(request).then((result) => this.#checkRecorded(key, full, this.#tagged(key, tags.length, known, request, result)));
    }
    if (tags.length === 0) {
      // A plain read of an entry that recorded tags when this process last read it
      // (recorded-tags.ts): its entry and those tags' counters in one plain read, folded into
      // the tick's MGET, instead of a second round trip for the tags once the entry is in.
      const recorded = this.#recorded.of(full);
      if (recorded !== undefined) {
        const counters = this.#keysOfAll(recorded);
        return this.path.getMany(withCounters(full, counters)).then((got) => this.#checkRecorded(key, full, this.#withCounters(key, recorded, counters, got)));
      }
      // The common untagged get: a then-chain (no async frame), one plain get folded into the tick's MGET.
      return this.path.get(full).then((bytes) => this.#checkRecorded(key, full, this.#plain(key, bytes)));
    }
    if (this.path.readsApart) {
      // The entry through the tick's plain reads (one MGET), the tags through the tick's one read
      // of tags, shared with every other read of the same tags: both in the same round trip.
      // The entry is read first; either order would be safe, since an entry is current only when
      // every generation it recorded equals the one read, and a fill records what it read before
      // its factory ran.
      const tagKeyList = this.#keysOfAll(tags);
      const shared = this.path.readTagStates(tagKeyList);
      return this.path.get(full).then((bytes) => {
        // The tags' answer came in the same reply, right after the entry's: usually here already.
        if (shared.answer !== undefined) return this.#checkRecorded(key, full, this.#apart(key, tags, tagKeyList, bytes, shared.answer));
        if (shared.failure !== undefined) throw shared.failure.error;
        return shared.promise.then((result) => this.#checkRecorded(key, full, this.#apart(key, tags, tagKeyList, bytes, result)));
      });
    }
    const request = this.#entryRequest(full, tags, undefined, undefined);
    return this.path.readWithGenerations!(request).then((result) => this.#checkRecorded(key, full, this.#tagged(key, tags.length, undefined, request, result)));
  }

  /** {@link read} of the caller's tags, synchronously (only when {@link synchronous}). */
  readNow(key: string, full: string, tags: readonly string[]): RemoteRead {
    let found: Found;
    const recorded = tags.length === 0 ? this.#recorded.of(full) : undefined;
    if (recorded !== undefined) {
      const counters = this.#keysOfAll(recorded);
      found = this.#withCounters(key, recorded, counters, this.path.getManySync!(withCounters(full, counters)));
    } else if (tags.length === 0) found = this.#plain(key, this.path.getSync!(full));
    else {
      const request = this.#entryRequest(full, tags, undefined, undefined);
      found = this.#tagged(key, tags.length, undefined, request, this.path.readWithGenerationsSync!(request));
    }
    const lacking = lackingTags(found);
    return this.#checked(key, full, found, lacking, lacking.length === 0 ? undefined : this.path.readWithGenerationsSync!(this.#tagRequest(lacking)));
  }

  /** Several entries in one round trip, and the tags they record in one more (only when some do). */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const entries = this.#decodeAll(keys, await this.path.getMany(fulls));
    const recorded = recordedTags(entries);
    if (recorded.length === 0) return entries;
    return this.#validateAll(keys, entries, recorded, await this.path.readWithGenerations!(this.#tagRequest(recorded)));
  }

  /** {@link readMany}, synchronously (only when {@link synchronous}). */
  readManyNow(keys: readonly string[], fulls: readonly string[]): Array<DecodedEntry | undefined> {
    const entries = this.#decodeAll(keys, this.path.getManySync!(fulls));
    const recorded = recordedTags(entries);
    if (recorded.length === 0) return entries;
    return this.#validateAll(keys, entries, recorded, this.path.readWithGenerationsSync!(this.#tagRequest(recorded)));
  }

  /** The current state of `tags` alone. */
  async snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    const request = this.#tagRequest(tags);
    return snapshotOf(new TagStates(tags, (await this.path.readWithGenerations!(request)).tags, request.tags), tags.length);
  }

  /** The read of one entry with the state of `tags` (and of `alsoCheck`, for a known copy): the caller's tags come first. */
  #entryRequest(full: string, tags: readonly string[], known: KnownCopy | undefined, alsoCheck: readonly string[] | undefined): EntryRequest {
    const names = alsoCheck && alsoCheck.length > 0 ? [...new Set([...tags, ...alsoCheck])] : tags;
    return { keys: [full], knownPrefixes: known ? [known.prefix] : undefined, tags: this.#keysOfAll(names), epoch: newEpoch(), names };
  }

  #tagRequest(tags: readonly string[]): GenerationRead {
    return { keys: NONE, tags: this.#keysOfAll(tags), epoch: newEpoch() };
  }

  #keysOfAll(tags: readonly string[]): TagKeys[] {
    const keys = new Array<TagKeys>(tags.length);
    for (let i = 0; i < tags.length; i++) keys[i] = this.keysOf(tags[i]!);
    return keys;
  }

  /** What a plain get found. */
  #plain(key: string, bytes: Uint8Array | undefined): Found {
    return new Found(bytes === undefined ? undefined : this.host.decode(key, bytes), bytes, 0, undefined, undefined);
  }

  /** What an entry request found: the entry (its own recorded tags not checked yet) and the state of the tags read. */
  #tagged(key: string, requested: number, known: KnownCopy | undefined, request: EntryRequest, result: GenerationReadResult): Found {
    const slot = result.values[0];
    const bytes = slot === 'unchanged' ? undefined : slot;
    const entry = slot === 'unchanged' ? known!.entry : bytes === undefined ? undefined : this.host.decode(key, bytes);
    return new Found(entry, bytes, requested, new TagStates(request.names, result.tags, request.tags), undefined);
  }

  /**
   * What a plain read of an entry and the generation counters of `tags` found. Only the
   * generations matter to validate it (no fill records them): a missing counter or one that is
   * not an integer equals no recorded generation, so the entry is then outdated, as it must be.
   */
  #withCounters(key: string, tags: readonly string[], counters: readonly TagKeys[], got: ReadonlyArray<Uint8Array | undefined>): Found {
    const bytes = got[0];
    const entry = bytes === undefined ? undefined : this.host.decode(key, bytes);
    const states = new Array<TagState>(tags.length);
    let moved = false;
    for (let i = 0; i < tags.length; i++) {
      const generation = counterValue(got[i + 1]);
      // A counter that moved past what the entry recorded may have moved softly (a stale entry,
      // not an outdated one): that tag is left out, so that its full state, soft record included,
      // is read next (lackingTags). Only a miss or a stale read pays that second round trip.
      if (generation !== undefined && entry !== undefined && generation !== recordedGeneration(entry, tags[i]!, i)) moved = true;
      states[i] = { generation: generation ?? Number.NaN, fenced: false };
    }
    if (!moved) return new Found(entry, bytes, 0, new TagStates(tags, states, counters), undefined);
    const kept = tags.flatMap((tag, i) => (states[i]!.generation === recordedGeneration(entry!, tag, i) || Number.isNaN(states[i]!.generation) ? [i] : []));
    return new Found(
      entry,
      bytes,
      0,
      new TagStates(
        kept.map((i) => tags[i]!),
        kept.map((i) => states[i]!),
        kept.map((i) => counters[i]!),
      ),
      undefined,
    );
  }

  /** What a plain get and a read of the caller's tags found. */
  #apart(key: string, tags: readonly string[], tagKeyList: readonly TagKeys[], bytes: Uint8Array | undefined, result: GenerationReadResult): Found {
    return new Found(bytes === undefined ? undefined : this.host.decode(key, bytes), bytes, tags.length, new TagStates(tags, result.tags, tagKeyList), undefined);
  }

  /**
   * Validates the entry of `found` against every tag it records, reading those not read yet
   * (a promise only then: the common entry records just the tags it was read with).
   */
  #checkRecorded(key: string, full: string, found: Found): RemoteRead | Promise<RemoteRead> {
    const lacking = lackingTags(found);
    if (lacking.length === 0) return this.#checked(key, full, found, lacking, undefined);
    return this.path.readWithGenerations!(this.#tagRequest(lacking)).then((more) => this.#checked(key, full, found, lacking, more));
  }

  /** `found` with its entry validated, given the state of the `lacking` tags read afterwards. */
  #checked(key: string, full: string, found: Found, lacking: readonly string[], more: GenerationReadResult | undefined): Found {
    // What a plain read of this key asks for with the entry next time (an untagged entry read plainly: nothing to do).
    if (found.requested === 0 && (found.read !== undefined || lacking.length > 0)) this.#recorded.note(full, found.entry);
    const extra = more === undefined ? undefined : new TagStates(lacking, more.tags, this.#keysOfAll(lacking));
    const entry = found.entry === undefined ? undefined : this.#validate(key, found.entry, found.read, extra);
    return entry === found.entry && extra === undefined ? found : new Found(entry, found.bytes, found.requested, found.read, extra);
  }

  #decodeAll(keys: readonly string[], raw: ReadonlyArray<Uint8Array | undefined>): Array<DecodedEntry | undefined> {
    const entries = new Array<DecodedEntry | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const bytes = raw[i];
      entries[i] = bytes === undefined ? undefined : this.host.decode(keys[i]!, bytes);
    }
    return entries;
  }

  #validateAll(keys: readonly string[], entries: Array<DecodedEntry | undefined>, recorded: readonly string[], result: GenerationReadResult): Array<DecodedEntry | undefined> {
    const states = new TagStates(recorded, result.tags, NO_KEYS);
    return entries.map((entry, i) => entry && this.#validate(keys[i]!, entry, states, undefined));
  }

  /**
   * The entry when every generation it recorded is the current one; stale (see {@link softlyMoved})
   * when the tags that moved since moved only softly; else undefined, reported as outdated.
   */
  #validate(key: string, entry: DecodedEntry, read: TagStates | undefined, extra: TagStates | undefined): DecodedEntry | undefined {
    let moved: string[] | undefined;
    let softSince: number | undefined;
    for (let i = 0; i < entry.tags.length; i++) {
      const recorded = entry.tags[i]!;
      const state = read?.stateOf(recorded.tag, i) ?? extra?.stateOf(recorded.tag, 0);
      if (state?.generation === recorded.generation) continue;
      const soft = state?.soft;
      // Only soft moves since the entry's fill: stale, from the earliest of those moves' runs.
      if (soft !== undefined && soft.from <= recorded.generation && recorded.generation < state!.generation) softSince = softSince === undefined ? soft.at : Math.min(softSince, soft.at);
      else (moved ??= []).push(recorded.tag);
    }
    if (moved === undefined) return softSince === undefined ? entry : softlyMoved(entry, softSince);
    this.host.outdated(key, moved);
    return undefined;
  }
}

/**
 * An entry whose tags moved softly at `since`: stale at once (whatever the reader's clock says,
 * so that a clock behind the invalidating one cannot hide the move), and servable stale for its
 * grace counted from the move, never longer than it would have been.
 */
function softlyMoved(entry: DecodedEntry, since: number): DecodedEntry {
  return { ...entry, freshUntil: -Infinity, staleUntil: Math.min(entry.staleUntil, since + entry.graceMs) };
}

/** Tag keys kept by {@link RemoteReads.keysOf} before it starts over. */
const MAX_KEPT_TAG_KEYS = 4096;
/** Past this many tags, {@link TagStates} looks names up in a Map instead of the list. */
const LINEAR_LOOKUP_TAGS = 8;

const NONE: readonly string[] = Object.freeze([]);
const NO_KEYS: readonly TagKeys[] = Object.freeze([]);

/** A read of one entry and tags, with the names of those tags. */
interface EntryRequest extends GenerationRead {
  readonly names: readonly string[];
}

/** The state of some tags as one read found them: names, states and store keys side by side. */
class TagStates {
  #index: Map<string, number> | undefined;

  constructor(
    readonly names: readonly string[],
    readonly states: readonly TagState[],
    readonly keys: readonly TagKeys[],
  ) {}

  /** The state of `name`, or undefined when it was not read; `at` is where to look first. */
  stateOf(name: string, at: number): TagState | undefined {
    const { names } = this;
    if (names[at] === name) return this.states[at];
    let index: number | undefined;
    if (names.length <= LINEAR_LOOKUP_TAGS) index = names.indexOf(name);
    else {
      this.#index ??= new Map(names.map((n, i) => [n, i]));
      index = this.#index.get(name);
    }
    return index === undefined || index < 0 ? undefined : this.states[index];
  }
}

/**
 * What a read found: the entry, its bytes, and the state of the tags read with it (the caller's
 * `requested` first) and after it (`extra`, tags the entry records that the caller did not
 * name). The snapshot and the counters are built only when asked for: a hit needs neither.
 */
class Found implements RemoteRead {
  #snapshot: TagSnapshot | undefined;

  constructor(
    readonly entry: DecodedEntry | undefined,
    readonly bytes: Uint8Array | undefined,
    readonly requested: number,
    readonly read: TagStates | undefined,
    readonly extra: TagStates | undefined,
  ) {}

  get snapshot(): TagSnapshot | undefined {
    if (this.requested === 0) return undefined;
    this.#snapshot ??= snapshotOf(this.read!, this.requested);
    return this.#snapshot;
  }

  get counters(): readonly string[] {
    if (this.read === undefined && this.extra === undefined) return NONE;
    return [...(this.read?.keys ?? NO_KEYS), ...(this.extra?.keys ?? NO_KEYS)].map((keys) => keys.generation);
  }
}

/** The generation `entry` recorded for `tag` (looked up at `at` first), or undefined. */
function recordedGeneration(entry: DecodedEntry, tag: string, at: number): number | undefined {
  const tags = entry.tags;
  if (tags[at]?.tag === tag) return tags[at]!.generation;
  return tags.find((recorded) => recorded.tag === tag)?.generation;
}

/** The tags `found`'s entry records that were not read with it. */
function lackingTags(found: Found): readonly string[] {
  let lacking: string[] | undefined;
  const tags = found.entry?.tags;
  if (tags !== undefined) for (let i = 0; i < tags.length; i++) if (found.read?.stateOf(tags[i]!.tag, i) === undefined) (lacking ??= []).push(tags[i]!.tag);
  return lacking ?? NONE;
}

/** The keys of a plain read of `full` and of its tags' generation counters, entry first. */
function withCounters(full: string, counters: readonly TagKeys[]): string[] {
  const keys = new Array<string>(counters.length + 1);
  keys[0] = full;
  for (let i = 0; i < counters.length; i++) keys[i + 1] = counters[i]!.generation;
  return keys;
}

/** Every tag the entries record, once. */
function recordedTags(entries: ReadonlyArray<DecodedEntry | undefined>): string[] {
  const recorded = new Set<string>();
  for (const entry of entries) if (entry) for (const { tag } of entry.tags) recorded.add(tag);
  return [...recorded];
}

/** The state of the first `count` tags of `read`, as a fill records it. */
function snapshotOf(read: TagStates, count: number): TagSnapshot {
  const generations: TagGeneration[] = [];
  const fenced: string[] = [];
  for (let i = 0; i < count; i++) {
    const tag = read.names[i]!;
    const state = read.states[i]!;
    generations.push({ tag, generation: state.generation });
    if (state.fenced) fenced.push(tag);
  }
  return { generations, fenced };
}
