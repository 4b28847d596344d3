/**
 * Request collapsing (RFC 9111 §4, RFC 9211 `collapsed`) and the fences that make purging
 * immediate. Every forward that may store something is registered here until its store
 * write has settled; the one forward per primary key whose response other requests may share
 * is its key's leader.
 *
 * A URL whose answer could not be shared with the requests waiting for it (not storable, or
 * stale on arrival) is remembered for a while (hit-for-miss, as Varnish calls it): its next
 * misses go to the origin each on its own, at once, instead of queueing behind one another's
 * origin calls only to be refused and sent on anyway. A response that can be shared ends it.
 *
 * A purge (or an unsafe method's invalidation) fences every matching forward: it stops being
 * a leader at once, so no later request joins it; a write it has not begun is skipped; a write
 * already running is awaited before the purge deletes from the store. Once `purge` resolves,
 * no request can get the purged response from this process.
 */
import type { SharedBody } from './shared-body.ts';
import type { ResponseMeta } from '../rules/stored-response.ts';
import { sameValues, varyValues } from '../rules/vary.ts';

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

/** One remembered answer that could not be shared: until when, and for which request values of the fields its `Vary` named. */
interface Pass {
  until: number;
  vary: readonly string[];
  values: ReadonlyArray<string | null>;
}

/** Most URLs remembered as hit-for-miss at once (the oldest go first), and most variants per URL. */
const MAX_PASS_KEYS = 10_000;
const MAX_PASSES_PER_KEY = 8;

/** How long hit-for-miss lasts, and the clock it is judged by. */
export interface PassOptions {
  /** ms; 0 turns hit-for-miss off. */
  ms: number;
  now: () => number;
}

/** The registry of forwards in flight, and the URLs whose misses are not collapsed. */
export class Forwards {
  readonly #leaders = new Map<string, Forward>();
  readonly #active = new Set<Forward>();
  readonly #passes = new Map<string, Pass[]>();

  constructor(private readonly passOptions: PassOptions) {}

  /**
   * Remembers that the answer to a request for `key` with these `headers` could not be shared
   * (`vary`: the fields its Vary named, so that other variants still collapse).
   */
  pass(key: string, vary: readonly string[], headers: Headers): void {
    const { ms, now } = this.passOptions;
    if (ms === 0) return;
    const values = varyValues(vary, headers);
    const kept = (this.#passes.get(key) ?? []).filter((pass) => !(sameValues(pass.vary, vary) && sameValues(pass.values, values)));
    kept.push({ until: now() + ms, vary, values });
    if (kept.length > MAX_PASSES_PER_KEY) kept.shift();
    // Re-inserted, so that the map's order is the order of last use and the oldest go first.
    this.#passes.delete(key);
    this.#passes.set(key, kept);
    if (this.#passes.size > MAX_PASS_KEYS) this.#passes.delete(this.#passes.keys().next().value!);
  }

  /** A response for `key` could be shared again: its misses collapse again. */
  unpass(key: string): void {
    this.#passes.delete(key);
  }

  /** True while a request for `key` with these `headers` should go to the origin on its own (hit-for-miss). */
  passes(key: string, headers: Headers): boolean {
    const list = this.#passes.get(key);
    if (list === undefined) return false;
    const now = this.passOptions.now();
    const live = list.filter((pass) => pass.until > now);
    if (live.length === 0) {
      this.#passes.delete(key);
      return false;
    }
    if (live.length < list.length) this.#passes.set(key, live);
    return live.some((pass) => pass.vary.length === 0 || sameValues(varyValues(pass.vary, headers), pass.values));
  }

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
