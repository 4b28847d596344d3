import Valkey from 'iovalkey';
import { delayContenders } from '../contenders/registry.ts';
import { runPhases, type ContenderResult, type PhaseRunOptions } from '../phases/run-phases.ts';
import { timedPass } from '../support/measure.ts';
import { median, round } from '../support/stats.ts';
import { spawnProxy } from './proxy-process.ts';

/** The delays the section runs, µs per round trip. */
export const DELAYS_US = [0, 250, 1000] as const;

/** Serial PING round trips through the proxy (or direct), the proxy's measured effect. */
export interface PingProbe {
  /** "direct" or the configured delay in µs. */
  path: 'direct' | number;
  /** Median round trip, µs. */
  rttUs: number;
  /** Proxy process CPU per PING, µs (0 for direct). */
  proxyCpuUsPerCall: number;
}

/** Results behind one delay setting. */
export interface DelayRun {
  delayUs: number;
  contenders: ContenderResult[];
}

/** The whole network-delay section. */
export interface DelayResult {
  probes: PingProbe[];
  runs: DelayRun[];
}

async function pingProbe(url: string, count: number): Promise<number> {
  const client = new Valkey(url);
  try {
    const samples: number[] = [];
    await timedPass(count, 1, async () => {
      const t0 = performance.now();
      await client.ping();
      samples.push((performance.now() - t0) * 1000);
      return true;
    });
    return median(samples);
  } finally {
    client.disconnect();
  }
}

/**
 * For each delay: measures serial PING round trips through the proxy (and once direct), then
 * runs the main contenders' seven phases through it with 50 calls in flight.
 */
export async function runDelaySection(
  base: Omit<PhaseRunOptions, 'url' | 'concurrency' | 'onPhase'>,
  directUrl: string,
  concurrency: number,
  pings: number,
  progress: (line: string) => void,
): Promise<DelayResult> {
  const probes: PingProbe[] = [{ path: 'direct', rttUs: round(await pingProbe(directUrl, pings), 1), proxyCpuUsPerCall: 0 }];
  const runs: DelayRun[] = [];
  for (const delayUs of DELAYS_US) {
    const proxy = await spawnProxy(directUrl, delayUs);
    try {
      const cpu0 = await proxy.cpuUs();
      const rtt = await pingProbe(proxy.url, pings);
      probes.push({ path: delayUs, rttUs: round(rtt, 1), proxyCpuUsPerCall: round(((await proxy.cpuUs()) - cpu0) / pings, 1) });
      progress(`delay ${delayUs} µs: PING round trip ${rtt.toFixed(0)} µs through the proxy`);
      const contenders: ContenderResult[] = [];
      for (const spec of delayContenders) {
        const r = await runPhases(spec, { ...base, url: proxy.url, concurrency });
        contenders.push(r);
        progress(`delay ${delayUs} µs ×${concurrency} ${spec.id}: get ${r.phases[0]?.callsPerSec}/s`);
      }
      runs.push({ delayUs, contenders });
    } finally {
      await proxy.stop();
    }
  }
  return { probes, runs };
}
