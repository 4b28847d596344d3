/**
 * `version` on getOrSet/wrap: a value stored by a fill that names a version travels in a small
 * wrapper the engine puts around it before encoding and takes off after decoding, so that
 * `get` and every other reader still see the value itself, and a fill under another version
 * can tell the entry is not its own. The wrapper is an object with one reserved member name
 * that no application value is expected to use.
 */

/** The reserved member that marks a versioned value. */
const MARK = '\u0000cachette:version';

/** A value and the version of the code that stored it. */
interface Versioned {
  readonly [MARK]: string | number;
  readonly value: unknown;
}

/** What is encoded for `value` stored under `version` (the value itself when there is none). */
export function withVersion(value: unknown, version: string | number | undefined): unknown {
  return version === undefined ? value : ({ [MARK]: version, value } satisfies Versioned);
}

/** The value and version of a decoded payload (no version: it was stored without one). */
export function versionOf(decoded: unknown): { value: unknown; version: string | number | undefined } {
  if (typeof decoded === 'object' && decoded !== null && MARK in decoded) {
    const version = (decoded as Versioned)[MARK];
    if (typeof version === 'string' || typeof version === 'number') return { value: (decoded as Versioned).value, version };
  }
  return { value: decoded, version: undefined };
}

/** `version`: a non-empty string or a finite number. */
export function checkVersion(version: unknown, where: string): string | number {
  if ((typeof version === 'string' && version !== '') || (typeof version === 'number' && Number.isFinite(version))) return version;
  throw new TypeError(`cachette: ${where}: "version" must be a non-empty string or a finite number, got ${JSON.stringify(version) ?? typeof version}`);
}
