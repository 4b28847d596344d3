/** A `cache.lock(name, { wait })` that did not get the lock before `wait` ran out: another holder kept it. */
export class LockTimeoutError extends Error {
  readonly code = 'E_LOCK_TIMEOUT';
  override name = 'LockTimeoutError';
  constructor(
    /** The lock's name. */
    readonly lock: string,
    /** How long the call waited, in ms (0: it tried once). */
    readonly waitMs: number,
  ) {
    super(waitMs === 0 ? `cachette: the lock "${lock}" is held by another holder` : `cachette: the lock "${lock}" was still held by another holder after ${waitMs} ms`);
  }
}
