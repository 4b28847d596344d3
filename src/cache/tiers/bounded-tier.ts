import type { Clock } from '../clock.ts';
import type { L1Copies, L1Copy } from './l1-copies.ts';
import type { RemoteReads } from './remote-reads.ts';
import { StrictTier } from './strict-tier.ts';
import type { TierRead } from './tier.ts';

/**
 * L1 with `consistency: 'bounded'`, for stores that cannot tell a process of another's writes
 * (no bus: upstash, cloudflare-kv): a copy is served with no round trip for `maxStalenessMs`
 * after the read that confirmed it was issued, then confirmed again as the strict tier does (one
 * small round trip, nothing transferred when unchanged). A write another process made is thus
 * seen by a read that starts at most `maxStalenessMs` after that write returned; this process's
 * own writes drop its copies at once (the strict tier's forget, tagsInvalidated, cleared).
 * Not coherent, and named so.
 */
export class BoundedTier extends StrictTier {
  /** When the read that last confirmed each copy was issued; a replaced copy is a new object, so it starts unconfirmed. */
  readonly #confirmed = new WeakMap<L1Copy, number>();

  constructor(
    remote: RemoteReads,
    copies: L1Copies,
    private readonly clock: Clock,
    private readonly maxStalenessMs: number,
  ) {
    super(remote, copies);
  }

  override async read(key: string, full: string, tags: readonly string[]): Promise<TierRead> {
    const issued = this.clock.now();
    const copy = this.copies.get(full);
    if (copy !== undefined) {
      const at = this.#confirmed.get(copy);
      // A clock that went back counts as expired: the bound is never stretched.
      if (at !== undefined && issued >= at && issued - at < this.maxStalenessMs) return { entry: copy.entry, snapshot: undefined };
    }
    const found = await this.validate(key, full, tags);
    if (found.entry === undefined) return found;
    const held = this.copies.get(full);
    // Either what this read just kept (its bytes came back), or the copy it confirmed unchanged; a copy another read put there meanwhile keeps its own time.
    if (held !== undefined && (found.bytes !== undefined || held === copy)) this.#confirmed.set(held, issued);
    return found;
  }
}
