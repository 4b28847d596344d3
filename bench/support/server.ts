import Valkey from 'iovalkey';
import { startRedis } from '../../test/support/redis-server.ts';

/** The redis-server a run talks to: REDIS_URL when set, otherwise one started (and stopped) here. */
export interface BenchServer {
  url: string;
  /** The server's version string from INFO server. */
  version: string;
  /** Admin connection for sampling and cleanup; it is the one client the `conns` column subtracts. */
  monitor: ServerMonitor;
  stop(): Promise<void>;
}

/** Opens the benchmark server, pinned to core `cpu` when given. */
export async function openServer(cpu?: number): Promise<BenchServer> {
  const external = process.env.REDIS_URL;
  const started = external ? undefined : await startRedis({ cpu });
  const url = external ?? started!.url;
  const monitor = new ServerMonitor(url);
  const info = await monitor.info('server');
  return {
    url,
    version: info.get('redis_version') ?? 'unknown',
    monitor,
    async stop() {
      await monitor.close();
      await started?.stop();
    },
  };
}

/** Counters read from INFO commandstats: calls per command name. */
export type CommandCounts = Map<string, number>;

/**
 * The harness's own connection to the server: INFO sampling while a phase runs, command
 * counts (to see what each contender really sends), MEMORY USAGE, and FLUSHDB between
 * contenders so one contender's keys never slow another's.
 */
export class ServerMonitor {
  readonly #client: Valkey;
  #timer: NodeJS.Timeout | undefined;
  #peak = 0;

  constructor(url: string) {
    this.#client = new Valkey(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  /** One INFO section as key → value. */
  async info(section: string): Promise<Map<string, string>> {
    const text = await this.#client.info(section);
    const map = new Map<string, string>();
    for (const line of text.split('\r\n')) {
      const at = line.indexOf(':');
      if (at > 0 && !line.startsWith('#')) map.set(line.slice(0, at), line.slice(at + 1));
    }
    return map;
  }

  /**
   * Samples `connected_clients` every `everyMs` until {@link stopSampling}. Sampling only while
   * a timed pass runs keeps the harness's own untimed fills (50 writes in flight) out of the peak.
   */
  startSampling(everyMs = 20): void {
    const sample = () => {
      this.info('clients').then(
        (m) => {
          this.#peak = Math.max(this.#peak, Number(m.get('connected_clients') ?? 0));
        },
        () => undefined, // A missed sample only lowers the peak estimate; it must not fail the run.
      );
    };
    sample();
    this.#timer = setInterval(sample, everyMs);
  }

  /** Stops sampling; the peak keeps growing across sampling windows until {@link takePeak}. */
  async stopSampling(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const last = await this.info('clients');
    this.#peak = Math.max(this.#peak, Number(last.get('connected_clients') ?? 0));
  }

  /** The peak client count since the last call, minus this monitor's own connection. */
  takePeak(): number {
    const peak = this.#peak;
    this.#peak = 0;
    return Math.max(0, peak - 1);
  }

  /** Calls per command since the server started (or since the last CONFIG RESETSTAT). */
  async commandCounts(): Promise<CommandCounts> {
    const counts: CommandCounts = new Map();
    for (const [key, value] of await this.info('commandstats')) {
      const calls = /calls=(\d+)/.exec(value);
      if (calls) counts.set(key.replace(/^cmdstat_/, ''), Number(calls[1]));
    }
    return counts;
  }

  /** Bytes the server attributes to `key` (MEMORY USAGE, all samples), or 0 when absent. */
  async memoryUsage(key: string): Promise<number> {
    const n = await this.#client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    return typeof n === 'number' ? n : 0;
  }

  /** Keys matching a glob pattern (SCAN, for tests of what a contender wrote). */
  async keys(pattern: string): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await this.#client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      out.push(...found);
      cursor = next;
    } while (cursor !== '0');
    return out;
  }

  /** Empties the database. */
  async flush(): Promise<void> {
    await this.#client.flushdb();
  }

  /** Closes the monitor connection. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}

/** Per-command differences between two {@link ServerMonitor.commandCounts} snapshots, non-zero only. */
export function commandDelta(before: CommandCounts, after: CommandCounts): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d > 0) delta[name] = d;
  }
  // The monitor's own INFO calls are not the contender's work.
  delete delta.info;
  return delta;
}
