/**
 * The few test-runner calls the shared suites use, so that one suite file runs unchanged under
 * vitest, `bun test`, Deno's test runner and workerd (through vitest's Workers pool): each
 * runner passes its own functions in. Vitest's and `bun:test`'s `describe`, `it`, `beforeAll`
 * and `afterAll` fit as they are; on Deno, `denoRunner()` builds them over `Deno.test`.
 */
export interface SuiteApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void> | void): void;
  beforeAll(body: () => Promise<void> | void): void;
  afterAll(body: () => Promise<void> | void): void;
  /**
   * Declares a test that cannot run here (a service it needs is missing), so that the runner
   * counts it as skipped instead of not at all. Runners without it drop the test.
   */
  skip?(name: string): void;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes of a string, for readable assertions. */
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A string from bytes. */
export const text = (value: Uint8Array | undefined): string | undefined => (value === undefined ? undefined : new TextDecoder().decode(value));
