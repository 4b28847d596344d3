/**
 * Whether the store answers, said in the log once per change (docs/architecture.md#failure-trust-and-reporting): a
 * warning at the first failure of a store that was answering, an info line when it answers
 * again. Reads and writes are one store to the reader of a log: a connection that is refused
 * fails both, and is said once. The breaker's own down and up transitions (and the `health`
 * events) say more, later; this is what makes a store that never answered visible at once, in
 * a script that makes two calls and exits, by default (`logger` defaults to `console`).
 */
import type { Store } from '../store/types.ts';
import type { CacheLogger } from './options.ts';
import type { HealthChange, HealthKind } from './path/breaker.ts';

export class Reachability {
  /** The kinds of call (read, write) failing since they last answered. */
  readonly #failing = new Set<HealthKind>();
  readonly #label: string;
  readonly #logger: CacheLogger;

  constructor(store: Store, logger: CacheLogger) {
    this.#logger = logger;
    this.#label = store.address ? `${store.name} at ${store.address}` : store.name;
  }

  /** Takes every breaker change; says the first failure and the recovery that follows it. */
  changed(change: HealthChange): void {
    if (change.state === 'failing' || change.state === 'down') {
      if (this.#failing.size === 0) this.#logger.warn(`cachette: store ${this.#label} is unreachable (${this.#cause(change.cause)}); serving from the source`);
      this.#failing.add(change.kind);
    } else if (this.#failing.delete(change.kind) && this.#failing.size === 0) {
      this.#logger.info(`cachette: store ${this.#label} answers again`);
    }
  }

  /** The failure's message without the store label the store's own errors start with. */
  #cause(message: string): string {
    const own = this.#label.replace(' at ', ' ');
    return message.startsWith(`${own}: `) ? message.slice(own.length + 2) : message;
  }
}
