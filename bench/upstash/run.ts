/**
 * cachette over the upstash store (HTTP, through the local bridge) against cachette over the
 * valkey store (RESP, direct), same redis-server: the seven phases, one call at a time and 50
 * in flight; then what the value encoding costs.
 *
 *   npx tsx bench/upstash/run.ts            N_OPS=1000 K_RUNS=3 by default; REDIS_URL to reuse a server
 *
 * The bridge runs in a child process, so "CPU µs per call" is the client's CPU only; on a
 * small machine the bridge, redis-server and the client still share the cores.
 */
import { upstashStore } from '../../adapters/upstash/index.ts';
import { cachetteSpec } from '../contenders/cachette.ts';
import { cachetteValkey } from '../contenders/registry.ts';
import { PHASES, type ContenderSpec } from '../contenders/types.ts';
import { runPhases, type ContenderResult } from '../phases/run-phases.ts';
import { isSmallValue, smallValue } from '../support/payloads.ts';
import { openServer } from '../support/server.ts';
import { spawnBridge } from '../../test/support/bridge-process.ts';
import { measureEncoding } from './encoding-cost.ts';

const n = Number(process.env.N_OPS ?? 1000);
const kRuns = Number(process.env.K_RUNS ?? 3);
const CONCURRENCY = [1, 50];

const server = await openServer();
const bridge = await spawnBridge(server.url);
try {
  const endpoint = { url: bridge.url, token: bridge.token };
  const specs: ContenderSpec[] = [
    cachetteValkey,
    cachetteSpec({ id: 'cachette-upstash', label: 'cachette (upstash via bridge, auto-pipelining)', store: () => upstashStore(endpoint) }),
    cachetteSpec({ id: 'cachette-upstash-nopipe', label: 'cachette (upstash via bridge, no auto-pipelining)', store: () => upstashStore({ ...endpoint, autoPipelining: false }) }),
  ];
  console.log(`redis ${server.version}, Node ${process.version}, ${n} calls per run, median of ${kRuns} runs (+1 warm-up)\n`);
  for (const concurrency of CONCURRENCY) {
    const results: ContenderResult[] = [];
    for (const spec of specs) {
      results.push(
        await runPhases(spec, {
          url: server.url,
          monitor: server.monitor,
          n,
          kRuns,
          batch: 10,
          concurrency,
          value: smallValue,
          check: isSmallValue,
        }),
      );
    }
    console.log(table(concurrency, results));
  }
  const e = measureEncoding();
  console.log('value encoding (adapters/upstash/value-encoding.ts), entry = CBOR envelope of the ~150-byte object');
  console.log(`| raw entry | encode+decode | bytes on the wire (request, reply) | reply with Upstash-Encoding: base64 | encode+decode 1 MiB |`);
  console.log(`|---:|---:|---:|---:|---:|`);
  console.log(
    `| ${e.rawBytes} B | ${e.encodeDecodeUs} µs | ${e.wireBytes} B (${(e.wireBytes / e.rawBytes).toFixed(2)}×) | ${e.wireBytesBase64Reply} B (${(e.wireBytesBase64Reply / e.rawBytes).toFixed(2)}×) | ${(e.encodeDecodeUs1MiB / 1000).toFixed(2)} ms |`,
  );
} finally {
  await bridge.stop();
  await server.stop();
}

function table(concurrency: number, results: ContenderResult[]): string {
  const head = `| ${concurrency === 1 ? 'serial' : `${concurrency} in flight`} | ${PHASES.join(' | ')} |`;
  const lines = [head, `|---|${PHASES.map(() => '---:').join('|')}|`];
  for (const r of results) {
    const cells = PHASES.map((p) => {
      const ph = r.phases.find((x) => x.phase === p)!;
      return `${ph.callsPerSec.toLocaleString('en-US')}/s · ${ph.cpuUsPerCall} µs${ph.wrong ? ` ⚠${ph.wrong} wrong` : ''}`;
    });
    lines.push(`| ${r.label} (conns ${r.conns}) | ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}
