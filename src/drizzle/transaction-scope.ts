/**
 * The fences of one transaction. Each write inside it takes the write leases of the tables it
 * writes before its statement runs (once per table: a table already fenced by an earlier
 * statement is not fenced again), and all of them are committed once the transaction has
 * ended: after its COMMIT returned, or after its rollback (which still invalidates, since a
 * failed COMMIT may have been applied). A `cache.mutate()` whose function ran statements inside
 * the transaction hands its fence over too ({@link TransactionScope.adopt}).
 */
import type { WriteFence } from '../cache/tags/write-fences.ts';

/** Write leases taken by {@link Fencer.begin}, one fence per slice (undefined where refused). */
export interface HeldFence {
  slices: ReadonlyArray<readonly string[]>;
  fences: ReadonlyArray<WriteFence | undefined>;
}

/** What a transaction needs of the query cache: a table's tag, and taking and committing fences. */
export interface Fencer {
  tableTag(table: string): string;
  begin(tags: readonly string[]): Promise<HeldFence>;
  end(held: HeldFence): Promise<void>;
}

/** A fence handed over to one or more transactions: committed by the last of them to end. */
export interface AdoptedFence {
  held: HeldFence;
  /** The transactions that have not ended yet. */
  waiting: number;
}

/** The fences of one transaction (see above). */
export class TransactionScope {
  /** Per tag, the begin that fences it (a second statement on the table waits for the first's lease). */
  readonly #fenced = new Map<string, Promise<HeldFence>>();
  readonly #adopted: AdoptedFence[] = [];
  #ended = false;

  constructor(private readonly queries: Fencer) {}

  /** True until {@link end}: a statement issued on the transaction's session after it ended is on its own. */
  get live(): boolean {
    return !this.#ended;
  }

  /** Resolves once every table of `tables` is fenced for the rest of the transaction. */
  async fence(tables: readonly string[]): Promise<void> {
    const tags = tables.map((table) => this.queries.tableTag(table));
    const fresh = tags.filter((tag) => !this.#fenced.has(tag));
    if (fresh.length > 0) {
      const begun = this.queries.begin(fresh);
      for (const tag of fresh) this.#fenced.set(tag, begun);
    }
    await Promise.all(tags.map((tag) => this.#fenced.get(tag)));
  }

  /**
   * Keeps `fence`, taken by a `mutate` whose statements ran in this transaction, until the
   * transaction ends. A fence shared by several (statements of two transactions ran while one
   * `mutate` did: which were its own cannot be told) is committed once the last has ended.
   */
  adopt(fence: AdoptedFence): void {
    this.#adopted.push(fence);
  }

  /** Commits every fence the transaction took, and the adopted ones it is the last to hold; called once, when it has ended either way. */
  async end(): Promise<void> {
    this.#ended = true;
    const held = new Set(this.#fenced.values());
    this.#fenced.clear();
    const adopted = this.#adopted.splice(0).filter((fence) => --fence.waiting === 0);
    await Promise.all([...[...held].map(async (begun) => this.queries.end(await begun)), ...adopted.map((fence) => this.queries.end(fence.held))]);
  }
}
