/**
 * The coherence bus of the SQLite store (Store.coherence), for processes sharing one database
 * file on one machine: no messages at all. SQLite's `PRAGMA data_version` answers, on the
 * store's own connection, a number that changes whenever another connection (another process,
 * or another store in this one) committed since it was last asked, and a commit is in the file
 * before the call that made it returns. So a hit first asks it, synchronously (a read of the
 * WAL index in shared memory, no disk access): unchanged, every copy is as current as the
 * database; changed, every copy is flushed before the read goes on. What this store's own
 * connection writes does not move it: those writes reach the other caches over this store at
 * once, here, and the writing cache has dropped its own copies already.
 *
 * Writes wait for nobody, and nothing stale survives a commit that returned: the cost is one
 * pragma per hit, and a flush of everything for each commit of another process.
 */
import type { Coherence, CoherenceListener, CoherenceOptions } from '../../src/store/types.ts';

/** The bus of one SQLite store; {@link register} gives each cache its {@link Coherence}. */
export class DataVersionBus {
  readonly #listeners = new Set<CoherenceListener>();
  /** The connection's data version (with the connection it was read on), or undefined before the first read. */
  #seen: { connection: unknown; version: unknown } | undefined;
  #session = 0;
  #live = false;

  /**
   * `read`: the data version and the connection it was read on, or undefined when the
   * database cannot be read now (a failed open: copies are not served, nor kept).
   */
  constructor(private readonly read: () => { connection: unknown; version: unknown } | undefined) {}

  /** Registers one cache; a watcher is refused: the counter tells that another process committed, never what. */
  register(listener: CoherenceListener, options?: CoherenceOptions): Coherence {
    if (options?.watcher === true) {
      throw new TypeError(
        "the sqlite store's coherence bus (PRAGMA data_version) tells that another process committed, not which keys: it cannot tell a watcher what changed (a valkey store's bus can)",
      );
    }
    this.#listeners.add(listener);
    const bus = this;
    return {
      serving: () => this.#serving(),
      get session() {
        return bus.#session;
      },
      mark: 0,
      // Nothing to watch: what another process commits moves the data version, and every copy
      // is checked against it before it is served (a read issued before a change the check
      // saw was issued in an older session, and is not kept).
      covered: () => true,
      barrier: () => Promise.resolve(this.#serving()),
      invalidate: (keys, written) => {
        for (const other of this.#listeners) {
          if (other === listener) continue;
          if (keys === undefined) other.flushed();
          else other.invalidated(keys);
        }
        return written.then(
          () => undefined,
          () => undefined,
        );
      },
      close: async () => {
        this.#listeners.delete(listener);
      },
    };
  }

  #serving(): boolean {
    const now = this.read();
    const seen = this.#seen;
    if (now !== undefined && seen !== undefined && now.connection === seen.connection && now.version === seen.version) return true;
    this.#seen = now;
    this.#session++;
    const wasLive = this.#live;
    this.#live = now !== undefined;
    for (const listener of this.#listeners) {
      listener.flushed();
      if (wasLive !== this.#live) listener.liveChanged(this.#live);
    }
    return this.#live;
  }
}
