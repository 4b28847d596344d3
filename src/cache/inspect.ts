/**
 * `cache.inspect`: what a read would find, judged on the cache's clock, with no side effect
 * a caller could observe: the entry is read from the store beneath any L1 (no copy is made),
 * through a {@link RemoteReads} of its own whose host counts and reports nothing (no hit, miss,
 * outdated or corrupt event, no byte counters). Tags are checked as a read checks them: an
 * entry outdated by a tag is `missing`, one whose tags moved softly is `stale`. Whether it is a
 * cached "nothing" is the cache's `negative` predicate applied to the value it holds.
 */
import type { Clock } from './clock.ts';
import type { DecodedEntry, EntryCodec } from './entry-codec.ts';
import type { GenerationLayer } from './path/generations.ts';
import { NO_TAGS } from './tags/tag-keys.ts';
import { unwrapped } from './roles/versioned.ts';
import { RemoteReads } from './tiers/remote-reads.ts';
import type { TierHost } from './tiers/tier.ts';
import type { EntryInspection } from './types.ts';

/** What inspect answers for an entry it cannot find (or read). */
export const MISSING: EntryInspection = Object.freeze({ state: 'missing', age: undefined, ttl: undefined, tags: Object.freeze([]), negative: false });

/** Reads entries for `inspect`, silently. */
export class Inspector {
  readonly #reads: RemoteReads;

  constructor(
    path: GenerationLayer,
    prefix: string,
    codec: EntryCodec,
    private readonly clock: Clock,
    private readonly negative: (value: unknown) => boolean,
  ) {
    const silent: TierHost = {
      decode(_key: string, bytes: Uint8Array): DecodedEntry | undefined {
        try {
          return unwrapped(codec.decode(bytes));
        } catch {
          return undefined;
        }
      },
      outdated() {},
    };
    this.#reads = new RemoteReads(path, prefix, silent);
  }

  /** The state of the entry under `full` (the store key of `key`). Store failures reject. */
  async inspect(key: string, full: string): Promise<EntryInspection> {
    const { entry } = await this.#reads.read(key, full, NO_TAGS);
    return entry === undefined ? MISSING : inspectionOf(entry, this.clock.now(), this.negative);
  }
}

/** `entry` as seen at `now`, `negative` telling a cached "nothing". */
function inspectionOf(entry: DecodedEntry, now: number, negative: (value: unknown) => boolean): EntryInspection {
  if (!(now < entry.staleUntil)) return MISSING;
  const fresh = now < entry.freshUntil;
  return {
    state: fresh ? 'fresh' : 'stale',
    age: Math.max(0, now - entry.createdAt),
    ttl: fresh ? entry.freshUntil - now : 0,
    tags: entry.tags.map((recorded) => recorded.tag),
    negative: negative(entry.value) === true,
  };
}
