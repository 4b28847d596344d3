/**
 * The context one factory run receives (`ctx` in `getOrSet(key, (ctx) => …)`), and what the
 * run asked for through it: the fill handler reads `lifetimes`, `tags`, `skipped` and
 * `failure` once the factory has settled, to decide what is stored and what callers get.
 */
import { checkSetOptions } from '../call-options.ts';
import { FactoryFailedError } from '../errors.ts';
import { checkTags } from '../tags/tag-keys.ts';
import type { FactoryContext, SetOptions } from '../types.ts';
import { lifetimesOf, type Lifetimes } from '../roles/lifetimes.ts';

/** One run's context; see {@link FactoryContext} for what each member means to the factory. */
export class FillContext<T> implements FactoryContext<T> {
  /** Set by `setOptions`: the lifetimes the fill stores with, instead of the call's. */
  lifetimes: Lifetimes | undefined;
  /** Set by `setOptions`: the tags the fill stores with, instead of the call's. */
  tags: readonly string[] | undefined;
  /** Set by `skip()`: the value is served, not stored. */
  skipped = false;
  /** Set by `fail()`: the error callers get when there is no stale value to serve. */
  failure: { error: unknown } | undefined;

  constructor(
    readonly key: string,
    readonly stale: T | undefined,
    readonly signal: AbortSignal,
    /** The call's lifetimes, which `setOptions` changes only in the fields it names. */
    private readonly base: Lifetimes,
  ) {}

  setOptions(options: SetOptions): void {
    // Checked like a call's options, and at once: a bad ttl fails the factory that set it.
    checkSetOptions(options, 'ctx.setOptions', this.key);
    const lifetimes = lifetimesOf(options, this.lifetimes ?? this.base);
    if (options.tags !== undefined) this.tags = checkTags(options.tags, `ctx.setOptions("${this.key}")`);
    this.lifetimes = lifetimes;
  }

  skip(): void {
    this.skipped = true;
  }

  fail(error?: unknown): never {
    const failure = error ?? new FactoryFailedError(this.key);
    this.failure = { error: failure };
    throw failure;
  }
}
