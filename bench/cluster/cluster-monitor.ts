/**
 * The benchmark harness's view of a cluster: what bench/support/server.ts's ServerMonitor does
 * for one server, summed over the masters (the nodes the clients talk to): FLUSHALL on each,
 * command counts added up, and the peak of client connections over all masters.
 */
import Valkey from 'iovalkey';
import type { PhaseMonitor } from '../phases/run-phases.ts';
import type { CommandCounts } from '../support/server.ts';

/** One admin connection per master of a cluster. */
export class ClusterMonitor implements PhaseMonitor {
  readonly #masters: Valkey[];
  #timer: NodeJS.Timeout | undefined;
  #peak = 0;

  /** `masters`: the client ports of the masters on 127.0.0.1. */
  constructor(masters: readonly number[]) {
    this.#masters = masters.map((port) => {
      const client = new Valkey({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
      // A master the failover drill kills refuses reconnections; the samples that fail say so by themselves.
      client.on('error', () => {});
      return client;
    });
  }

  async flush(): Promise<void> {
    await Promise.all(this.#masters.map((m) => m.flushall()));
  }

  startSampling(everyMs = 20): void {
    const sample = () => {
      this.#clients().then(
        (n) => void (this.#peak = Math.max(this.#peak, n)),
        () => undefined, // A missed sample only lowers the peak estimate.
      );
    };
    sample();
    this.#timer = setInterval(sample, everyMs);
  }

  async stopSampling(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#peak = Math.max(this.#peak, await this.#clients());
  }

  /** The peak connections over all masters since the last call, this monitor's own excluded. */
  takePeak(): number {
    const peak = this.#peak;
    this.#peak = 0;
    return Math.max(0, peak - this.#masters.length);
  }

  async commandCounts(): Promise<CommandCounts> {
    const counts: CommandCounts = new Map();
    for (const text of await Promise.all(this.#masters.map((m) => m.info('commandstats')))) {
      for (const match of text.matchAll(/cmdstat_([\w|-]+):calls=(\d+)/g)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
    }
    return counts;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#masters.map((m) => m.quit().catch(() => m.disconnect())));
  }

  async #clients(): Promise<number> {
    let total = 0;
    for (const text of await Promise.all(this.#masters.map((m) => m.info('clients')))) total += Number(/connected_clients:(\d+)/.exec(text)?.[1] ?? 0);
    return total;
  }
}
