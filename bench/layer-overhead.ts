/**
 * Layer overhead: what cachette's own work costs per call on top of the client it drives.
 * cachette over the valkey store (CBOR, defaults) against raw iovalkey (JSON text) on the same
 * redis-server, get and set of the ~150-byte object, one call at a time and 50 in flight.
 * Contenders take turns run by run, so drift (thermal, other load) hits them alike.
 *
 *   npx tsx bench/layer-overhead.ts        (REDIS_URL to use a running server)
 */
import { pathToFileURL } from 'node:url';
import { cborSerializer, encodeEnvelope, decodeEnvelope, jsonSerializer } from '../src/index.ts';
import { cachetteSpec } from './contenders/cachette.ts';
import { iovalkeySpec } from './contenders/iovalkey.ts';
import type { Contender, ContenderSpec } from './contenders/types.ts';
import { readConfig, type RunConfig } from './support/config.ts';
import { timedPass } from './support/measure.ts';
import { isSmallValue, smallValue } from './support/payloads.ts';
import { openServer } from './support/server.ts';
import { median, round } from './support/stats.ts';

/** One contender, operation and mode. */
export interface LayerRow {
  contender: string;
  label: string;
  op: 'get' | 'set';
  concurrency: number;
  callsPerSec: number;
  cpuUsPerCall: number;
  /** CPU µs per call above raw iovalkey in the same op and mode (0 for the baseline). */
  cpuUsOverRaw: number;
  /** Wall µs per call above raw iovalkey (negative: faster than the raw client). */
  wallUsOverRaw: number;
}

/** In-process cost of the codec steps alone, µs per value (no I/O). */
export interface CodecCost {
  step: string;
  usPerValue: number;
}

/** Everything the layer-overhead measurement produced. */
export interface LayerResult {
  rows: LayerRow[];
  codec: CodecCost[];
  /** The project's budget for the cache's own CPU per call over the client, µs. */
  budgetUs: number;
}

const BUDGET_US = 1.5;
const BASELINE = 'iovalkey';

const specs: ContenderSpec[] = [
  iovalkeySpec(false),
  cachetteSpec({ id: 'cachette-valkey', label: 'cachette (valkey, CBOR)', store: 'valkey' }),
  cachetteSpec({ id: 'cachette-valkey-nobatch', label: 'cachette (valkey, CBOR, batching off)', store: 'valkey', batch: false }),
];

/** Runs the measurement against the server at `url`. */
export async function runLayerOverhead(url: string, cfg: RunConfig, progress: (line: string) => void = () => undefined): Promise<LayerResult> {
  const opened: Array<[ContenderSpec, Contender]> = [];
  for (const spec of specs) opened.push([spec, await spec.open(url)]);
  const n = cfg.layerOps;
  const rows: LayerRow[] = [];
  try {
    // Values for the get runs, written once; every read is checked.
    for (const [spec, c] of opened) {
      await timedPass(n, 50, async (i) => (await c.set(`lo:${spec.id}:${i}`, smallValue(i)), true));
    }
    for (const op of ['get', 'set'] as const) {
      for (const concurrency of [1, cfg.concurrency]) {
        const samples = new Map<string, { rate: number[]; cpu: number[] }>(opened.map(([s]) => [s.id, { rate: [], cpu: [] }]));
        for (let run = 0; run <= cfg.layerRuns; run++) {
          for (const [spec, c] of opened) {
            const r = await timedPass(n, concurrency, op === 'get'
              ? async (i) => isSmallValue(await c.get(`lo:${spec.id}:${i}`), i)
              : async (i) => (await c.set(`lo:${spec.id}:${i}`, smallValue(i)), true));
            if (r.wrong > 0) throw new Error(`${spec.id} ${op}: ${r.wrong} reads did not return the stored value`);
            if (run === 0) continue; // warm-up
            samples.get(spec.id)!.rate.push((n / r.ms) * 1000);
            samples.get(spec.id)!.cpu.push(r.cpuUs / n);
          }
        }
        const base = samples.get(BASELINE)!;
        const baseRate = median(base.rate);
        const baseCpu = median(base.cpu);
        for (const [spec] of opened) {
          const s = samples.get(spec.id)!;
          const rate = median(s.rate);
          const cpu = median(s.cpu);
          rows.push({
            contender: spec.id,
            label: spec.label,
            op,
            concurrency,
            callsPerSec: Math.round(rate),
            cpuUsPerCall: round(cpu),
            cpuUsOverRaw: round(cpu - baseCpu),
            wallUsOverRaw: round(1e6 / rate - 1e6 / baseRate),
          });
        }
        progress(`layer-overhead ${op} ×${concurrency}: ${rows.slice(-specs.length).map((r) => `${r.contender} ${r.callsPerSec}/s ${r.cpuUsPerCall}µs`).join(', ')}`);
      }
    }
  } finally {
    for (const [, c] of opened) await c.close();
  }
  return { rows, codec: codecCosts(), budgetUs: BUDGET_US };
}

/** Times the codec steps a cachette get/set performs, so the overhead can be attributed. */
function codecCosts(): CodecCost[] {
  const value = smallValue(42);
  const cbor = cborSerializer.encode(value);
  const json = jsonSerializer.encode(value);
  const envelope = encodeEnvelope({ serializerId: 1, compressionId: 0, createdAt: Date.now(), freshFor: Infinity, staleFor: 0, tags: [], payload: cbor });
  const steps: Array<[string, () => unknown]> = [
    ['CBOR encode (cbor-x)', () => cborSerializer.encode(value)],
    ['CBOR decode (cbor-x)', () => cborSerializer.decode(cbor)],
    ['JSON.stringify', () => JSON.stringify(value)],
    ['JSON.parse', () => JSON.parse('{"id":42,"name":"User number 42","email":"user42@example.com","active":false,"roles":["reader","writer"],"score":1042,"updatedAt":"2025-01-01T00:00:00.000Z"}')],
    ['JSON encode to bytes (serializer)', () => jsonSerializer.encode(value)],
    ['JSON decode from bytes (serializer)', () => jsonSerializer.decode(json)],
    ['envelope encode', () => encodeEnvelope({ serializerId: 1, compressionId: 0, createdAt: 0, freshFor: Infinity, staleFor: 0, tags: [], payload: cbor })],
    ['envelope decode', () => decodeEnvelope(envelope)],
  ];
  const reps = 200_000;
  return steps.map(([step, fn]) => {
    for (let i = 0; i < 20_000; i++) fn();
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    return { step, usPerValue: round(((performance.now() - t0) * 1000) / reps, 3) };
  });
}

/** The result as markdown tables (used by the README and by the standalone run). */
export function layerMarkdown(r: LayerResult): string {
  const lines = [
    '| Contender | op | in flight | calls/s | CPU µs/call | CPU µs over raw | wall µs over raw |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...r.rows.map((x) => `| ${x.label} | ${x.op} | ${x.concurrency} | ${x.callsPerSec.toLocaleString('en-US')} | ${x.cpuUsPerCall.toFixed(2)} | ${x.contender === BASELINE ? '—' : signed(x.cpuUsOverRaw)} | ${x.contender === BASELINE ? '—' : signed(x.wallUsOverRaw)} |`),
    '',
    '| Codec step (in process, no I/O) | µs per value |',
    '|---|---:|',
    ...r.codec.map((c) => `| ${c.step} | ${c.usPerValue.toFixed(3)} |`),
  ];
  return lines.join('\n');
}

function signed(n: number): string {
  return (n > 0 ? '+' : '') + n.toFixed(2);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const cfg = readConfig();
  const server = await openServer();
  try {
    console.error(`redis-server ${server.version} at ${server.url}; ${cfg.layerOps} calls × ${cfg.layerRuns} runs (+1 warm-up) each`);
    const result = await runLayerOverhead(server.url, cfg, (line) => console.error(line));
    console.log(layerMarkdown(result));
    console.log(`\nBudget: cachette's own CPU ≤ ${result.budgetUs} µs per call over the client.`);
  } finally {
    await server.stop();
  }
}
