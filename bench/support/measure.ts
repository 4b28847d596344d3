/** One timed pass of `n` calls, `concurrency` of them in flight at any moment. */
export interface PassResult {
  /** Wall time of the pass in milliseconds. */
  ms: number;
  /** Process CPU (user + system) spent during the pass, microseconds. */
  cpuUs: number;
  /** Calls whose result was not what the phase expected (a miss on a hit, a hit on a miss…). */
  wrong: number;
}

/**
 * Runs `op(0) … op(n-1)` with `concurrency` workers pulling the next index as soon as their
 * call settles, so exactly `concurrency` calls are in flight until the tail. `op` resolves
 * true when the call did the expected work; a rejected call aborts the pass (a benchmark
 * that swallowed errors would measure the error path).
 */
export async function timedPass(n: number, concurrency: number, op: (i: number) => Promise<boolean>): Promise<PassResult> {
  let next = 0;
  let wrong = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      if (!(await op(i))) wrong++;
    }
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuUs: cpu.user + cpu.system, wrong };
}
