import type { CompressorRow } from '../compression/micro.ts';
import type { EngineCostRow } from '../engine-cost.ts';
import type { DelayResult } from '../network/delay-section.ts';
import type { ChildResult } from '../phases/in-child.ts';
import type { ContenderResult } from '../phases/run-phases.ts';
import type { RunConfig } from '../support/config.ts';
import type { Environment } from '../support/environment.ts';

/** Everything one `npm run bench` measured: the JSON under bench/results/ and the README's source. */
export interface BenchResults {
  date: string;
  /** The commit measured (`git describe --always --dirty`): the engine these figures belong to. */
  commit?: string;
  durationS: number;
  config: RunConfig;
  environment: Environment;
  /** 1-minute load average of the machine when the run started and ended. */
  loadAverage: { start: number; end: number };
  /** The cores the server and the measured clients were pinned to (taskset), when the machine has two. */
  pinning: { serverCpu: number; clientCpu: number } | undefined;
  /** The engine's own CPU per call, without I/O, layer by layer. */
  engineCost: EngineCostRow[];
  main: { serial: ContenderResult[]; concurrent: ContenderResult[] };
  serializers: ContenderResult[];
  /** Compression settings on the rows payload; `memoryPerKey` is the server's MEMORY USAGE of one entry. */
  compression: { inputBytes: number; micro: CompressorRow[]; macro: ChildResult[] };
  delay: DelayResult;
}
