import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Heap growth means something only after a full collection; the flag is switched on at run
// time so `npm run bench` needs no node flags (the tsx launcher does not forward them).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Bytes of JS heap still in use after a full garbage collection. */
export function settledHeapBytes(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
