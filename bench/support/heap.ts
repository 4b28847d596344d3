import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Heap growth means something only after a full collection; the flag is switched on at run
// time so `npm run bench` needs no node flags (the tsx launcher does not forward them).
// Bun has its own (Bun.gc); Deno exposes none, so there the figure is the heap as it stands.
setFlagsFromString('--expose-gc');
const collect = ((): (() => void) => {
  try {
    return runInNewContext('gc') as () => void;
  } catch {
    const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
    return bun ? () => bun.gc(true) : () => {};
  }
})();

/** Bytes of JS heap still in use after a full garbage collection. */
export function settledHeapBytes(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
