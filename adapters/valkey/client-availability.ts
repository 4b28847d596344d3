/**
 * An iovalkey client (one server or a Cluster) a store works through: whether it is known to be
 * unreachable, from its own events — an error while it is not ready says why, a close without
 * one says "connection closed", ready clears both; before the first connection is up (and no
 * error was seen), it is not known to be down, so calls may wait for it — and closing it only
 * when the store opened it.
 */
import type { Cluster, Redis } from 'iovalkey';

/** Watches one client; see the module comment. */
export class ClientAvailability {
  readonly #client: Redis | Cluster;
  /** Whether the store opened the client (and closes it), or was given it (which its owner closes). */
  readonly #owned: boolean;
  /** Why the client is known to be down, or undefined while it is up (or still coming up). */
  #unavailable: string | undefined;

  readonly #onError = (error: Error): void => {
    if (this.#client.status !== 'ready') this.#unavailable = error.message;
  };
  readonly #onClose = (): void => {
    this.#unavailable ??= 'connection closed';
  };
  readonly #onReady = (): void => {
    this.#unavailable = undefined;
  };

  constructor(client: Redis | Cluster, owned: boolean) {
    this.#client = client;
    this.#owned = owned;
    client.on('error', this.#onError);
    client.on('close', this.#onClose);
    client.on('ready', this.#onReady);
  }

  /** Why calls must fail at once, or undefined. */
  get unavailable(): string | undefined {
    return this.#unavailable === undefined || this.#client.status === 'ready' ? undefined : this.#unavailable;
  }

  /** Stops watching (a client passed in outlives the store), and closes a client the store opened. */
  async close(): Promise<void> {
    this.#client.removeListener('error', this.#onError);
    this.#client.removeListener('close', this.#onClose);
    this.#client.removeListener('ready', this.#onReady);
    if (!this.#owned) return;
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }
}
