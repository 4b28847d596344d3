import type { TagGeneration } from '../../codec/envelope.ts';
import type { GenerationReadResult, Store, TagKeys } from '../../store/types.ts';
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
  constructor(
    private readonly path: Store,
    private readonly prefix: string,
    private readonly host: TierHost,
  ) {}

  /** The store keys of `tag`. */
  keysOf(tag: string): TagKeys {
    return tagKeys(this.prefix, tag);
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
      return this.#checkRecorded(key, entry, undefined).then((checked) => ({ entry: checked.entry, snapshot: undefined, bytes, counters: checked.counters }));
    });
  }

  async #readTagged(key: string, full: string, tags: readonly string[], known: KnownCopy | undefined, alsoCheck: readonly string[] | undefined): Promise<RemoteRead> {
    const names = alsoCheck && alsoCheck.length > 0 ? [...new Set([...tags, ...alsoCheck])] : tags;
    const tagKeyList = names.map((tag) => this.keysOf(tag));
    const result = await this.path.readWithGenerations!({ keys: [full], knownPrefixes: known ? [known.prefix] : undefined, tags: tagKeyList, epoch: newEpoch() });
    const slot = result.values[0];
    const bytes = slot === 'unchanged' ? undefined : slot;
    const entry = slot === 'unchanged' ? known!.entry : bytes === undefined ? undefined : this.host.decode(key, bytes);
    const current = currentOf(names, result);
    const snapshot = tags.length === 0 ? undefined : snapshotOf(tags, current);
    const counters = tagKeyList.map((k) => k.generation);
    if (entry === undefined) return { entry, snapshot, bytes, counters };
    const checked = await this.#checkRecorded(key, entry, current);
    return { entry: checked.entry, snapshot, bytes, counters: checked.counters.length > 0 ? [...counters, ...checked.counters] : counters };
  }

  /** Several entries in one round trip, and the tags they record in one more (only when some do). */
  async readMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<DecodedEntry | undefined>> {
    const raw = await this.path.getMany(fulls);
    const entries = keys.map((key, i) => {
      const bytes = raw[i];
      return bytes === undefined ? undefined : this.host.decode(key, bytes);
    });
    const recorded = [...new Set(entries.flatMap((e) => (e ? e.tags.map((t) => t.tag) : [])))];
    if (recorded.length === 0) return entries;
    const current = currentOf(recorded, await this.#readTags(recorded));
    return entries.map((entry, i) => entry && this.#validate(keys[i]!, entry, current));
  }

  /** The current state of `tags` alone. */
  async snapshot(tags: readonly string[]): Promise<TagSnapshot> {
    return snapshotOf(tags, currentOf(tags, await this.#readTags(tags)));
  }

  #readTags(tags: readonly string[]): Promise<GenerationReadResult> {
    return this.path.readWithGenerations!({ keys: NONE, tags: tags.map((tag) => this.keysOf(tag)), epoch: newEpoch() });
  }

  /** Validates an entry's recorded tags against `current`, reading those it lacks first. */
  async #checkRecorded(key: string, entry: DecodedEntry, current: Map<string, CurrentTag> | undefined): Promise<{ entry: DecodedEntry | undefined; counters: readonly string[] }> {
    const lacking = entry.tags.filter((t) => !current?.has(t.tag)).map((t) => t.tag);
    let all = current;
    if (lacking.length > 0) {
      const more = currentOf(lacking, await this.#readTags(lacking));
      all = current ? new Map([...current, ...more]) : more;
    }
    return { entry: this.#validate(key, entry, all!), counters: lacking.map((tag) => this.keysOf(tag).generation) };
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

/** A tag's state, by name. */
interface CurrentTag {
  generation: number;
  fenced: boolean;
}

const NONE: readonly string[] = Object.freeze([]);

function currentOf(names: readonly string[], result: GenerationReadResult): Map<string, CurrentTag> {
  const current = new Map<string, CurrentTag>();
  names.forEach((name, i) => current.set(name, result.tags[i]!));
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
