import { cachetteSpec } from '../contenders/cachette.ts';
import { zlibCompressor } from '../../runtimes/node/index.ts';
import type { CompressionOptions } from '../../src/index.ts';
import { runPhases, type ContenderResult, type PhaseRunOptions } from '../phases/run-phases.ts';
import { isRowsValue, rowsValue } from '../support/payloads.ts';
import { median } from '../support/stats.ts';

/** One compression setting run through the seven phases. */
export interface CompressionMacroRow extends ContenderResult {
  /** Median MEMORY USAGE of a stored entry, bytes. */
  memoryPerKey: number;
}

const settings: Array<[id: string, label: string, compression: CompressionOptions | false]> = [
  ['off', 'compression off', false],
  ['deflate-1', 'fflate deflate level 1', { level: 1 }],
  ['deflate-6', 'fflate deflate level 6', { level: 6 }],
  ['deflate-9', 'fflate deflate level 9', { level: 9 }],
  ['zlib-deflate-3', 'node:zlib deflate level 3 (zlibCompressor)', { compressor: zlibCompressor({ level: 3 }) }],
  ['zlib-brotli-4', 'node:zlib brotli quality 4 (zlibCompressor)', { compressor: zlibCompressor({ format: 'brotli', level: 4 }) }],
];

/**
 * The seven phases through cachette over valkey on the rows payload with each compression
 * setting cachette supports, plus the server memory one entry takes.
 */
export async function compressionMacro(base: Omit<PhaseRunOptions, 'value' | 'check' | 'afterPhase'>): Promise<CompressionMacroRow[]> {
  const rows: CompressionMacroRow[] = [];
  for (const [id, label, compression] of settings) {
    let memoryPerKey = 0;
    const result = await runPhases(cachetteSpec({ id: `cachette-${id}`, label, store: 'valkey', compression }), {
      ...base,
      value: rowsValue,
      check: isRowsValue,
      async afterPhase(phase, prefix) {
        if (phase !== 'set') return;
        // Keys as the engine writes them: its prefix and namespace, then the phase's key.
        const keys = await base.monitor.keys(`cachette:cachette-${id}:${prefix}:s:*`);
        if (keys.length === 0) throw new Error(`no keys found for ${id}: the set phase stored nothing`);
        const sizes = await Promise.all(keys.slice(0, 20).map((k) => base.monitor.memoryUsage(k)));
        memoryPerKey = Math.round(median(sizes));
      },
    });
    rows.push({ ...result, memoryPerKey });
  }
  return rows;
}
