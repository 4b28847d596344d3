/**
 * `version` on getOrSet/wrap: a value stored by a fill that names a version travels in a small
 * wrapper the engine puts around it before encoding and takes off after decoding, so that
 * `get` and every other reader still see the value itself, and a fill under another version
 * can tell the entry is not its own. The wrapper is an object with one reserved member name
 * that no application value is expected to use. The same wrapper carries how long the fill's
 * factory took (`xfetch` on getOrSet, docs/cache.md#probabilistic-early-refresh-xfetch), under
 * a second reserved member, so that every reader can judge the entry's early refresh.
 */

import type { DecodedEntry } from '../entry-codec.ts';

/** The reserved member that marks a versioned value. */
const MARK = '\u0000cachette:version';
/** The reserved member that carries the factory's duration in ms. */
const COMPUTE_MARK = '\u0000cachette:computeMs';

/** A value, the version of the code that stored it and how long computing it took (each optional). */
interface Versioned {
  readonly [MARK]?: string | number;
  readonly [COMPUTE_MARK]?: number;
  readonly value: unknown;
}

/** What a decoded payload holds: the value, and what the wrapper said about it. */
export interface Unwrapped {
  value: unknown;
  version: string | number | undefined;
  computeMs: number | undefined;
}

/** What is encoded for `value` stored under `version`, computed in `computeMs` (the value itself when neither is given). */
export function withVersion(value: unknown, version: string | number | undefined, computeMs?: number): unknown {
  if (computeMs === undefined) return version === undefined ? value : ({ [MARK]: version, value } satisfies Versioned);
  return version === undefined ? ({ [COMPUTE_MARK]: computeMs, value } satisfies Versioned) : ({ [MARK]: version, [COMPUTE_MARK]: computeMs, value } satisfies Versioned);
}

/** The value, version and compute time of a decoded payload (undefined for what it was stored without). */
function versionOf(decoded: unknown): Unwrapped {
  if (typeof decoded === 'object' && decoded !== null && (MARK in decoded || COMPUTE_MARK in decoded) && 'value' in decoded) {
    const wrapper = decoded as Versioned;
    const version = wrapper[MARK];
    const computeMs = wrapper[COMPUTE_MARK];
    // Stored bytes are untrusted: a member of the wrong type is ignored, not believed.
    return {
      value: wrapper.value,
      version: typeof version === 'string' || typeof version === 'number' ? version : undefined,
      computeMs: typeof computeMs === 'number' && computeMs >= 0 && Number.isFinite(computeMs) ? computeMs : undefined,
    };
  }
  return { value: decoded, version: undefined, computeMs: undefined };
}

/** `version`: a non-empty string or a finite number. */
export function checkVersion(version: unknown, where: string): string | number {
  if ((typeof version === 'string' && version !== '') || (typeof version === 'number' && Number.isFinite(version))) return version;
  throw new TypeError(`cachette: ${where}: "version" must be a non-empty string or a finite number, got ${JSON.stringify(version) ?? typeof version}`);
}

/** `entry` with its value taken out of the wrapper, and what the wrapper said recorded on it. */
export function unwrapped(entry: DecodedEntry): DecodedEntry {
  const { value, version, computeMs } = versionOf(entry.value);
  if (version !== undefined || computeMs !== undefined) {
    entry.value = value;
    if (version !== undefined) entry.version = version;
    if (computeMs !== undefined) entry.computeMs = computeMs;
  }
  return entry;
}
