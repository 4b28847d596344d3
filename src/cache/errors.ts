/**
 * Errors the engine raises about values and factories, each with a stable `code` and the key
 * it concerns. Store-path errors live in src/store/errors.ts.
 */

/** A value larger than `maxValueBytes`: served to the caller, never stored. */
export class ValueTooLargeError extends RangeError {
  readonly code = 'E_VALUE_TOO_LARGE';
  override name = 'ValueTooLargeError';
  constructor(
    readonly key: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`cachette: the value for key "${key}" is ${bytes} bytes, above maxValueBytes (${limit}); it is served but not stored`);
  }
}

/** A `getOrSet` factory that did not settle within `factoryTimeout`. */
export class FactoryTimeoutError extends Error {
  readonly code = 'E_FACTORY_TIMEOUT';
  override name = 'FactoryTimeoutError';
  constructor(
    readonly key: string,
    readonly timeoutMs: number,
  ) {
    super(`cachette: the factory for key "${key}" did not settle within ${timeoutMs} ms`);
  }
}

/** A factory that called `ctx.fail()` without an error of its own. */
export class FactoryFailedError extends Error {
  readonly code = 'E_FACTORY_FAILED';
  override name = 'FactoryFailedError';
  constructor(readonly key: string) {
    super(`cachette: the factory for key "${key}" gave up (ctx.fail())`);
  }
}

/** A fenced write used out of order (committed after it was aborted). */
export class WriteFenceError extends Error {
  readonly code = 'E_WRITE_FENCE';
  override name = 'WriteFenceError';
  constructor(
    readonly tags: readonly string[],
    reason: string,
  ) {
    super(`cachette: write fence on [${tags.join(', ')}]: ${reason}`);
  }
}

/** An option that needs a store capability the store lacks (e.g. `l1: { consistency: 'tracking' }` on Upstash). */
export class MissingCapabilityError extends TypeError {
  readonly code = 'E_STORE_CAPABILITY';
  override name = 'MissingCapabilityError';
  constructor(
    readonly store: string,
    readonly capability: string,
    hint: string,
  ) {
    super(`cachette: the "${store}" store has no "${capability}" capability: ${hint}`);
  }
}
