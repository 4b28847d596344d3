import type { CompressionMacroRow } from '../compression/macro.ts';
import type { CompressorRow } from '../compression/micro.ts';
import type { LayerResult } from '../layer-overhead.ts';
import type { DelayResult } from '../network/delay-section.ts';
import type { ContenderResult } from '../phases/run-phases.ts';
import type { RunConfig } from '../support/config.ts';
import type { Environment } from '../support/environment.ts';

/** Everything one `npm run bench` measured: the JSON under bench/results/ and the README's source. */
export interface BenchResults {
  date: string;
  durationS: number;
  config: RunConfig;
  environment: Environment;
  /** 1-minute load average of the machine when the run started and ended. */
  loadAverage: { start: number; end: number };
  layer: LayerResult;
  main: { serial: ContenderResult[]; concurrent: ContenderResult[] };
  serializers: ContenderResult[];
  compression: { inputBytes: number; micro: CompressorRow[]; macro: CompressionMacroRow[] };
  delay: DelayResult;
}
