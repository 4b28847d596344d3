/**
 * One contender's seven phases in a process of its own, so that no contender's JIT state,
 * garbage or sockets weigh on another's figures. Run by {@link runPhasesInChild} from the
 * compiled bench (the built code, as users run it), pinned to the client's core; prints its
 * result as one JSON line.
 */
import { contenderById } from '../contenders/registry.ts';
import { isRowsValue, isSmallValue, rowsValue, smallValue } from '../support/payloads.ts';
import { ServerMonitor } from '../support/server.ts';
import { median } from '../support/stats.ts';
import type { ChildJob } from './in-child.ts';
import { runPhases } from './run-phases.ts';

const job = JSON.parse(process.argv[2]!) as ChildJob;
const monitor = new ServerMonitor(job.url);
const payload = job.payload === 'rows' ? { value: rowsValue, check: isRowsValue } : { value: smallValue, check: isSmallValue };
let memoryPerKey: number | undefined;
try {
  const result = await runPhases(contenderById(job.contender), {
    url: job.url,
    monitor,
    n: job.n,
    kRuns: job.kRuns,
    batch: job.batch,
    concurrency: job.concurrency,
    ...(job.only ? { only: job.only } : {}),
    ...payload,
    async afterPhase(phase, prefix) {
      if (!job.memoryUsage || phase !== 'set') return;
      // Keys as cachette writes them: its prefix and namespace (the contender id), then the phase's key.
      const keys = await monitor.keys(`cachette:${job.contender}:${prefix}:s:*`);
      if (keys.length === 0) throw new Error(`no keys found for ${job.contender}: the set phase stored nothing`);
      memoryPerKey = Math.round(median(await Promise.all(keys.slice(0, 20).map((k) => monitor.memoryUsage(k)))));
    },
  });
  process.stdout.write(`${JSON.stringify({ ...result, ...(memoryPerKey === undefined ? {} : { memoryPerKey }) })}\n`);
} finally {
  await monitor.close();
}
