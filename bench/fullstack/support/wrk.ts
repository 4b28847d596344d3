import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { canPin } from './launch.ts';

const SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));

/** One wrk run. */
export interface WrkOptions {
  url: string;
  connections: number;
  threads: number;
  durationS: number;
  /** Spread requests over /page/1…keys with `missPercent` % unique ids (see wrk.lua); absent: the url as is. */
  pages?: { keys: number; missPercent: number };
  /** CPU list for taskset. */
  cpus?: string;
  /** A response slower than this counts as a timeout error. Default 5 s. */
  timeoutS?: number;
}

/** What wrk measured. */
export interface WrkResult {
  requests: number;
  durationS: number;
  reqPerSec: number;
  latencyAvgMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Responses outside 2xx/3xx. */
  non2xx: number;
  /** connect + read + write + timeout errors. */
  socketErrors: number;
}

interface WrkJson {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

/** Reads the WRK_JSON line wrk.lua prints; throws with wrk's output when there is none. */
export function parseWrkOutput(stdout: string): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${stdout.slice(-2000)}`);
  const j = JSON.parse(line.slice('WRK_JSON '.length)) as WrkJson;
  const durationS = j.durationUs / 1e6;
  return {
    requests: j.requests,
    durationS,
    reqPerSec: durationS > 0 ? j.requests / durationS : 0,
    latencyAvgMs: j.meanUs / 1000,
    latencyP50Ms: j.p50Us / 1000,
    latencyP99Ms: j.p99Us / 1000,
    latencyMaxMs: j.maxUs / 1000,
    non2xx: j.status,
    socketErrors: j.connect + j.read + j.write + j.timeout,
  };
}

/**
 * Runs wrk with the bench's script. wrk stops by itself after `durationS`; a kill timer a few
 * seconds later bounds it even if it hangs.
 */
export function runWrk(o: WrkOptions): Promise<WrkResult> {
  const args = ['-t', String(o.threads), '-c', String(o.connections), '-d', `${o.durationS}s`, '--timeout', `${o.timeoutS ?? 5}s`, '-s', SCRIPT, o.url];
  const command = o.cpus && canPin ? ['taskset', '-c', o.cpus, 'wrk', ...args] : ['wrk', ...args];
  const env = { ...process.env, ...(o.pages ? { WRK_PAGES: `${o.pages.keys}:${o.pages.missPercent}` } : {}) };
  if (!o.pages) delete env.WRK_PAGES;
  return new Promise((resolve, reject) => {
    execFile(command[0]!, command.slice(1), { env, timeout: (o.durationS + 15) * 1000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      try {
        resolve(parseWrkOutput(stdout));
      } catch (parseError) {
        reject(parseError);
      }
    });
  });
}
