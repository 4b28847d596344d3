/**
 * The "Cluster" section of bench/README.md, from bench/results/cluster.json (written by
 * `npx tsx bench/cluster/run.ts`): the seven phases on a local cluster, the fault drills, and
 * how throughput should grow with masters.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterBenchResults } from '../cluster/results.ts';
import { phaseTable } from './tables.ts';

/** The drills as a table: what HTTP clients and the cache saw. */
export function clusterDrillTable(r: ClusterBenchResults): string {
  const rows = [
    ['master killed, replica promoted', r.drills.failover],
    [`${r.drills.reshard.slotsMoved} busy slots resharded`, r.drills.reshard],
  ] as const;
  const replies = (d: ClusterBenchResults['drills']['failover']) =>
    Object.entries(d.errorReplies)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  return [
    '| Fault | requests | HTTP errors | misses after the fault | store errors | longest request ms (before → during) | fault took ms | hits back after ms | error replies of the servers |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      ([name, d]) =>
        `| ${name} | ${d.requests} | ${d.httpErrors} | ${d.missesAfterFault} | ${d.storeErrors} | ${Math.round(d.longestBeforeMs)} → ${Math.round(d.longestRequestMs)} | ${d.faultMs} | ${d.hitsBackAfterMs ?? 'not within the drill'} | ${replies(d)} |`,
    ),
  ].join('\n');
}

/** What folding a tick bought in this run: the batched cachette row over the `batch: false` one, per phase. */
function foldingLine(r: ClusterBenchResults): string {
  const batched = r.phases.find((c) => c.id === 'cachette-cluster');
  const alone = r.phases.find((c) => c.id === 'cachette-cluster-unbatched');
  if (!batched || !alone) return '';
  const ratios = batched.phases.map((p) => {
    const other = alone.phases.find((q) => q.phase === p.phase);
    return other && other.callsPerSec > 0 ? `${p.phase} ${(p.callsPerSec / other.callsPerSec).toFixed(2)}×` : `${p.phase} —`;
  });
  return `Folding in this run (cachette, cluster store ÷ the same with \`batch: false\`): ${ratios.join(', ')}; CPU per call ${batched.cpuUsPerCall.toFixed(1)} vs ${alone.cpuUsPerCall.toFixed(1)} µs.`;
}

/** The section's markdown (`link` names a file of bench/ in the repository); a pointer to the command when no cluster run was recorded yet. */
export function clusterSection(dir: string, link: (path: string) => string): string {
  const file = join(dir, 'results', 'cluster.json');
  const intro = `## Cluster: the cluster store on a local Redis Cluster

\`npx tsx bench/cluster/run.ts\` (\`--quick\` for a smoke run) builds a cluster of 3 masters and 3 replicas on loopback
(\`test/support/redis-cluster.ts\`), runs the seven phases with 50 calls in flight (\`CONCURRENCY\`) for cachette on
\`valkeyStore({ cluster })\` and for the raw cluster clients, then two fault drills through the caching proxy
([\`test/support/cluster-drill.ts\`](${link('../test/support/cluster-drill.ts')}), the code the failover test runs).`;
  if (!existsSync(file)) return `${intro}\n\nNo cluster run recorded yet.`;
  const r = JSON.parse(readFileSync(file, 'utf8')) as ClusterBenchResults;
  return `${intro} Run on ${r.date}${r.commit ? ` at commit \`${r.commit}\`` : ' (no commit recorded)'} in ${Math.round(r.durationS / 60)} min; raw numbers: [\`results/cluster.json\`](${link('results/cluster.json')});
load average ${r.loadAverage.start.toFixed(1)} → ${r.loadAverage.end.toFixed(1)} on ${r.environment.cores} cores, with every node of the cluster on the same cores as the client.

### Seven phases, ${r.config.concurrency} in flight (calls/s)

${r.config.nOps.toLocaleString('en-US')} calls per phase run, ${r.config.kRuns} timed runs, median; getMany and setMany of ${r.config.batch} keys.

${phaseTable(r.phases)}

${foldingLine(r)}

**conns** is the peak of client connections summed over the masters: every cluster client here keeps one
connection per master per process (cachette's store through iovalkey's \`Cluster\`; replicas get none unless
\`clientOptions.scaleReads\` asks for them). *batch: false* is the same store with each call sent alone: the
difference between the two cachette rows is what folding a tick buys on a cluster. With keys spread at random,
the keys of one getMany fall in different slots, so folding cannot make one MGET of them; it gives one write per
master per tick (every master's socket corked while the tick is written), one MGET per slot that holds several
keys, and, for increments, deletes and expiring writes, one script per slot that holds several.

### Faults under load, through the caching proxy (${r.drills.failover.requests + r.drills.reshard.requests} requests)

16 HTTP clients on loopback cycle over 300 cached URLs (all hits before the fault); each fault starts after
the warm-up and the drill ends once hits have held at the baseline for a second.

${clusterDrillTable(r)}

*Hits back after* counts from the start of the fault to the end of the last 100 ms window whose hit ratio was
below 90 % of the baseline. While a master is down its keys are misses served by the origin (calls for it fail
fast with \`StoreUnavailableError\` once its connection broke); the cache's read and write health go *down* and
come back *up* as events. The longest request is a call caught on the dead connection: it waits for the cache's
store timeout (1 s), then the origin. While the cluster votes (after \`cluster-node-timeout\`, 1 s here) every node
answers CLUSTERDOWN for every slot (the servers' default \`cluster-require-full-coverage yes\`), so the cache's read
health goes down as a whole and every request is a miss until the replica is promoted.

### How throughput should grow with masters

Keys spread over the 16,384 slots by CRC16, so with N masters each serves about 1/N of the keys and 1/N of
the single-key commands. A master is one single-threaded server, so for loads where the servers are the limit
throughput grows close to N-fold, as long as each master has a core of its own and the clients can drive it:
the store opens one connection per master and writes each tick to all of them at once, so a tick costs the
slowest master's round trip, not the sum. What does not grow: one client process is one event loop (past
its CPU, add processes, each with its own connection per master); multi-key commands only fold within a slot,
so a getMany of N random keys costs up to N commands however many masters there are (give keys read together
one hash tag to make them one MGET); and a hot hash tag pins all its keys, and their traffic, to one master.
On this machine the nodes and the client share 2 cores, so adding masters adds no CPU and these rows cannot
show the growth; measure it on hosts with a core per master.`;
}
