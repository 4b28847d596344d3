/**
 * One window of the coherent-writes A/B (bench/coherent/writes-ab.ts): the full stack's `/work`
 * calls (bench/fullstack/app/workload.ts: two gets, a getMany, two sets, an incr), run by
 * `argv[5]` loops at once in this process for `argv[4]` seconds, through cachette taken from the
 * tree at `argv[2]` (so that two commits run the same script), with `l1: { consistency:
 * 'coherent' }` or no L1 (`argv[3]`: coherent | none), on the redis-server at `argv[6]`. Prints one
 * JSON line: requests, seconds, CPU ms per request, bytes read from the store per request (what
 * copies save, whatever the host's load), failed calls and store errors by message.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, mode, seconds, loops, url] = process.argv.slice(2) as [string, string, string, string, string];
const from = (path: string) => import(pathToFileURL(join(root, path)).href);
const { cachetteSpec } = (await from('bench/contenders/cachette.ts')) as typeof import('../contenders/cachette.ts');
const { doWork, prefill, randomParams, workKeys } = (await from('bench/fullstack/app/workload.ts')) as typeof import('../fullstack/app/workload.ts');

const storeErrors = new Map<string, number>();
let bytesRead = (): number => 0;
const id = `ab-${mode}`;
const contender = await cachetteSpec({
  id,
  label: id,
  store: 'valkey',
  ...(mode === 'coherent' ? { options: { l1: { consistency: 'coherent' } } } : {}),
  onCache: (cache) => {
    bytesRead = () => cache.stats().bytesRead;
    cache.events.addEventListener('error', (event) => {
      const message = `${event.detail.operation}: ${String((event.detail.error as Error)?.message ?? event.detail.error)}`.replace(/127\.0\.0\.1:\d+/, 'server');
      storeErrors.set(message, (storeErrors.get(message) ?? 0) + 1);
    });
  },
}).open(url);
const keys = workKeys(id);
await prefill(contender, keys);
// Warm-up: copies made and the bus subscribed to what they depend on, as after a server's warm-up.
const until = (ms: number) => performance.now() + ms;
async function run(end: number): Promise<{ requests: number; failed: number }> {
  let requests = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: Number(loops) }, async () => {
      while (performance.now() < end) {
        try {
          await doWork(contender, randomParams(), keys);
          requests++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { requests, failed };
}
await run(until(1000));
storeErrors.clear();
const read = bytesRead();
const cpu = process.cpuUsage();
const started = performance.now();
const { requests, failed } = await run(until(Number(seconds) * 1000));
const elapsed = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
const bytesPerRequest = (bytesRead() - read) / Math.max(requests, 1);
process.stdout.write(
  `${JSON.stringify({ requests, seconds: elapsed, cpuMsPerRequest: (used.user + used.system) / 1000 / Math.max(requests, 1), bytesPerRequest, failed, storeErrors: Object.fromEntries(storeErrors) })}\n`,
);
await contender.close();
process.exit(0);
