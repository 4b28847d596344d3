/**
 * The fences of one transaction. Each write inside it takes the write leases of the tables it
 * writes before its statement runs (once per table: a table already fenced by an earlier
 * statement is not fenced again), and all of them are committed once the transaction has
 * ended: after its COMMIT returned, or after its rollback (which still invalidates, since a
 * failed COMMIT may have been applied).
 */
import type { HeldFence, QueryCache } from './query-cache.ts';

/** The fences of one transaction (see above). */
export class TransactionScope {
  /** Per tag, the begin that fences it (a second statement on the table waits for the first's lease). */
  readonly #fenced = new Map<string, Promise<HeldFence>>();
  #ended = false;

  constructor(private readonly queries: QueryCache) {}

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

  /** Commits every fence the transaction took; called once, when it has ended either way. */
  async end(): Promise<void> {
    this.#ended = true;
    const held = new Set(this.#fenced.values());
    this.#fenced.clear();
    await Promise.all([...held].map(async (begun) => this.queries.end(await begun)));
  }
}
