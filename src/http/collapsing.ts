/**
 * Request collapsing (RFC 9111 §4, RFC 9211 `collapsed`) and the fences that make purging
 * immediate. Every forward that may store something is registered here until its store
 * write has settled; the one forward per primary key whose response other requests may share
 * is its key's leader.
 *
 * A purge (or an unsafe method's invalidation) fences every matching forward: it stops being
 * a leader at once, so no later request joins it; a write it has not begun is skipped; a write
 * already running is awaited before the purge deletes from the store. Once `purge` resolves,
 * no request can get the purged response from this process.
 */
import type { SharedBody } from './shared-body.ts';
import type { ResponseMeta } from './stored-response.ts';

/** What the requests that joined a forward get from it. */
export type ForwardOutcome =
  /** A response they may share: read its body along with the leader; `length` when the origin declared it. */
  | { kind: 'shared'; meta: ResponseMeta; body: SharedBody; length: number | undefined; fwdStatus: number }
  /** The origin failed (threw, timed out, or answered 5xx): stale-if-error where allowed, else 504. */
  | { kind: 'failed'; fwdStatus: number | undefined; detail: string }
  /** A response only for the request that caused it (private, not storable): each joiner forwards itself. */
  | { kind: 'unshared' };

/** What a purge removes. */
export type Fence = { key: string } | { tag: string };

/** One forward that may store a response. */
export class Forward {
  #settle!: (outcome: ForwardOutcome) => void;
  /** Settles once the response head is known (or the forward failed). */
  readonly outcome = new Promise<ForwardOutcome>((resolve) => (this.#settle = resolve));
  #purged = false;
  #tags: readonly string[] | undefined;
  /** Tags purged before this forward's response said which tags it carries. */
  readonly #earlyTagPurges = new Set<string>();
  #write: Promise<unknown> | undefined;

  constructor(readonly key: string) {}

  /** True once a purge matched it: its response must not be stored or shared any more. */
  get purged(): boolean {
    return this.#purged;
  }

  /** Tells the joiners what they get. */
  settle(outcome: ForwardOutcome): void {
    this.#settle(outcome);
  }

  /** Records the tags its response carries (a tag purge that came earlier then applies to it). */
  carries(tags: readonly string[]): void {
    this.#tags = tags;
    if (tags.some((tag) => this.#earlyTagPurges.has(tag))) this.#purged = true;
  }

  /** Runs the store write unless a purge came first; a purge that comes later waits for it. */
  store(write: () => Promise<unknown>): Promise<unknown> {
    if (this.#purged) return Promise.resolve();
    this.#write = write();
    return this.#write;
  }

  /** Applies a purge; returns true when it matches this forward. */
  fence(target: Fence): boolean {
    if ('key' in target) {
      if (target.key !== this.key) return false;
    } else if (this.#tags === undefined) {
      // The response head has not arrived: whether it carries the tag is not known yet.
      this.#earlyTagPurges.add(target.tag);
      return true;
    } else if (!this.#tags.includes(target.tag)) {
      return false;
    }
    this.#purged = true;
    return true;
  }

  /** The store write in progress, if any. */
  get write(): Promise<unknown> | undefined {
    return this.#write;
  }
}

/** The registry of forwards in flight. */
export class Forwards {
  readonly #leaders = new Map<string, Forward>();
  readonly #active = new Set<Forward>();

  /** The forward other requests for `key` may join, if one is running. */
  leader(key: string): Forward | undefined {
    return this.#leaders.get(key);
  }

  /** Registers a forward for `key`; as its key's leader when `lead` and no other leads. */
  begin(key: string, lead: boolean): Forward {
    const forward = new Forward(key);
    this.#active.add(forward);
    if (lead && !this.#leaders.has(key)) this.#leaders.set(key, forward);
    return forward;
  }

  /** Unregisters a forward whose write has settled (or that will not write). */
  end(forward: Forward): void {
    this.#active.delete(forward);
    if (this.#leaders.get(forward.key) === forward) this.#leaders.delete(forward.key);
  }

  /** Fences every matching forward and resolves when the writes they already began have settled. */
  async fence(targets: readonly Fence[]): Promise<void> {
    const writes: Array<Promise<unknown>> = [];
    for (const forward of this.#active) {
      let matched = false;
      for (const target of targets) matched = forward.fence(target) || matched;
      if (!matched) continue;
      if (this.#leaders.get(forward.key) === forward) this.#leaders.delete(forward.key);
      if (forward.write) writes.push(forward.write);
    }
    await Promise.allSettled(writes);
  }
}
