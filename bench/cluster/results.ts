import type { DrillReport } from '../../test/support/cluster-drill.ts';
import type { ContenderResult } from '../phases/run-phases.ts';
import type { RunConfig } from '../support/config.ts';
import type { Environment } from '../support/environment.ts';

/** Everything bench/cluster/run.ts measured: bench/results/cluster.json and the README's cluster section. */
export interface ClusterBenchResults {
  date: string;
  /** The commit measured (`git describe --always --dirty`); absent from runs before it was recorded. */
  commit?: string;
  durationS: number;
  config: RunConfig;
  environment: Environment;
  /** 1-minute load average when the run started and ended. */
  loadAverage: { start: number; end: number };
  /** The cluster's shape: masters, replicas per master, cluster-node-timeout. */
  shape: { masters: number; replicasPerMaster: number; nodeTimeoutMs: number };
  /** The seven phases at `config.concurrency` in flight, one row per contender. */
  phases: ContenderResult[];
  /** The fault drills through the caching proxy. */
  drills: { failover: DrillReport; reshard: DrillReport & { slotsMoved: number } };
}
