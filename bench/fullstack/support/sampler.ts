import type { ServerMonitor } from '../../support/server.ts';
import { connectionsTo, groupRssBytes } from './proc.ts';

/** One sample, taken every second while a row runs. */
export interface Sample {
  /** Seconds since the row's load started (negative during the warm-up). */
  t: number;
  /** Resident memory of the server's processes, MiB. */
  rssMiB: number;
  /** The store's `connected_clients`, minus the clients that were there before the server started. */
  redisClients: number;
  /** TCP connections open to the bridge (the HTTP store's sockets); 0 when there is no bridge. */
  bridgeSockets: number;
}

/** What to sample. */
export interface SamplerOptions {
  /** Process group of the server. */
  pgid: number;
  /** Count only processes running this program (workerd), not the whole group. */
  program?: string;
  monitor: ServerMonitor;
  /** Clients connected before the server started: the monitor, the bridge. */
  baselineClients: number;
  /** Port of the bridge, when the server reaches the store over HTTP. */
  bridgePort?: number;
}

const MIB = 1024 * 1024;

/** Reads `connected_clients` once. */
export async function connectedClients(monitor: ServerMonitor): Promise<number> {
  return Number((await monitor.info('clients')).get('connected_clients') ?? 0);
}

/**
 * Samples the server's RSS, the store's clients and the bridge sockets every second, from
 * {@link start} to {@link stop}. A sample that fails (INFO timing out under load) is skipped,
 * never fatal: one missing point does not change a trend.
 */
export class Sampler {
  readonly samples: Sample[] = [];
  readonly #o: SamplerOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #zero = 0;

  constructor(options: SamplerOptions) {
    this.#o = options;
  }

  /** Takes one sample now, `t` seconds after the load started. */
  async sample(): Promise<Sample> {
    const t = (performance.now() - this.#zero) / 1000;
    const rssMiB = groupRssBytes(this.#o.pgid, this.#o.program) / MIB;
    const clients = await connectedClients(this.#o.monitor);
    return {
      t: Math.round(t * 10) / 10,
      rssMiB: Math.round(rssMiB * 10) / 10,
      redisClients: Math.max(0, clients - this.#o.baselineClients),
      bridgeSockets: this.#o.bridgePort === undefined ? 0 : connectionsTo(this.#o.bridgePort),
    };
  }

  /** Starts sampling every second; `loadStartsInS` puts t = 0 where the measured load will start. */
  start(loadStartsInS: number): void {
    this.#zero = performance.now() + loadStartsInS * 1000;
    const take = () =>
      void this.sample().then(
        (s) => this.samples.push(s),
        () => undefined,
      );
    take();
    this.#timer = setInterval(take, 1000);
  }

  /** Stops sampling. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Least-squares slope of y over x; 0 with fewer than two points. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** RSS trend over `[from, to]` seconds of the samples, in % of `reference` MiB per 10 s. */
export function rssSlopePctPer10s(samples: readonly Sample[], from: number, to: number, reference: number): number {
  if (reference <= 0) return 0;
  const window = samples.filter((s) => s.t >= from && s.t <= to).map((s) => [s.t, s.rssMiB] as const);
  return (slope(window) * 10 * 100) / reference;
}
