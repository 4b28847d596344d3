/**
 * Retrying a call while another connection holds the write lock. SQLite's own busy handler is
 * off (it would sleep inside the call, blocking the event loop, in steps of milliseconds), so a
 * busy call is tried again from the event loop: on the next turns first (a writer holds the lock
 * for microseconds), then on timers that grow to a few milliseconds, until the store's timeout.
 */

// Tries on the next turn of the event loop, before the first timer.
const IMMEDIATE_RETRIES = 4;
// The longest pause between two tries, ms.
const MAX_RETRY_PAUSE_MS = 16;

/** How a store tells a busy file from a failure, and names what it throws. */
export interface RetryPolicy {
  timeoutMs: number;
  isBusy(error: unknown): boolean;
  /** The error to throw for a failure that is not "busy". */
  fail(error: unknown): unknown;
  /** The error to throw once the file stayed busy for `timeoutMs`. */
  timedOut(error: unknown): unknown;
}

/**
 * Retries `op`, which failed with `error`, while the policy calls the error busy and the
 * timeout has not passed; rejects with the policy's error otherwise. Never blocks the loop.
 */
export async function retryWhileBusy<T>(error: unknown, op: () => T, policy: RetryPolicy): Promise<T> {
  const deadline = Date.now() + policy.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (!policy.isBusy(error)) throw policy.fail(error);
    if (Date.now() >= deadline) throw policy.timedOut(error);
    await pause(attempt);
    try {
      return op();
    } catch (next) {
      error = next;
    }
  }
}

const nextTurn: (resume: () => void) => void = typeof setImmediate === 'function' ? (resume) => setImmediate(resume) : (resume) => setTimeout(resume, 0);

function pause(attempt: number): Promise<void> {
  if (attempt < IMMEDIATE_RETRIES) return new Promise(nextTurn);
  return new Promise((resume) => setTimeout(resume, Math.min(2 ** (attempt - IMMEDIATE_RETRIES), MAX_RETRY_PAUSE_MS)));
}
