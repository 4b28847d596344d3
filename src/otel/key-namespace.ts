/**
 * The namespace of a cache key: what telemetry may say about a key without saying the key.
 * Keys often carry identifiers (user ids, e-mail addresses, URLs with tokens), and traces and
 * metrics leave the process, so only the leading name of a key is kept.
 */

/** The leading name: letters, digits, `_`, `.` and `-`, at most 64 of them. */
const LEADING_NAME = /^[A-Za-z0-9_.-]{1,64}(?=[:(])/;

/**
 * The namespace of `key`: the name before its first `:` (`user:42` → `user`, the HTTP cache's
 * `u:https://…` → `u`) or its first `(` (a wrapped function's default key, `getUser("42")` →
 * `getUser`). A key without such a name (`bob@example.com`, `homepage`) has none: undefined,
 * rather than a guess that could be the identifier itself.
 */
export function keyNamespace(key: string): string | undefined {
  return LEADING_NAME.exec(key)?.[0];
}
