/**
 * The few test-runner calls the shared suites use, so that one suite file runs unchanged
 * under vitest, bun test, Deno.test and workerd: each runner passes its own functions in.
 */
export interface SuiteApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void> | void): void;
  beforeAll(body: () => Promise<void> | void): void;
  afterAll(body: () => Promise<void> | void): void;
  /**
   * Declares a test that cannot run here (a service it needs is missing), so the runner counts
   * it as skipped and scripts/test lists it as NOT RUN. Runners without it drop the test.
   */
  skip?(name: string): void;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Bytes of a string, for readable assertions. */
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A string from bytes. */
export const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
