/**
 * URLs with their secrets hidden, for every message, error and log line that quotes one (a store
 * URL in a TypeError, the store named at start-up, the bridge's Redis): the password of the
 * userinfo, and query parameters that hold a password, a token or a secret, become `***`. Text
 * that does not parse as a URL — the malformed URL an error is about — keeps nothing between
 * `//` and the last `@`, and no value of such a parameter. Linear in the text's length.
 */

/** Query parameters whose values are secrets. */
const SECRET_PARAMETER = /password|token|secret/i;

/** `text` (a URL, or something meant to be one) with its secrets replaced by `***`. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return redactMalformed(text);
  }
  const secrets = [...url.searchParams.keys()].filter((name) => SECRET_PARAMETER.test(name));
  // A URL without a secret is quoted as written: a message tells its reader what they typed, not URL's normal form.
  if (!url.password && secrets.length === 0) return text;
  if (url.password) url.password = '***';
  for (const name of secrets) url.searchParams.set(name, '***');
  return url.toString();
}

/** Text that is not a URL: everything that could be userinfo, and the value of every parameter whose name says secret. */
function redactMalformed(text: string): string {
  let out = text;
  const at = out.lastIndexOf('@');
  if (at >= 0) {
    const scheme = out.indexOf('//');
    const from = scheme >= 0 && scheme < at ? scheme + 2 : 0;
    out = `${out.slice(0, from)}***${out.slice(at)}`;
  }
  // Pieces at even places, the separators between them at odd ones.
  const parts = out.split(/([?&;#])/);
  for (let i = 2; i < parts.length; i += 2) {
    const part = parts[i]!;
    const equals = part.indexOf('=');
    if (equals > 0 && parts[i - 1] !== '#' && SECRET_PARAMETER.test(part.slice(0, equals))) parts[i] = `${part.slice(0, equals + 1)}***`;
  }
  return parts.join('');
}
