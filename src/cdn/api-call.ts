/**
 * One POST to a CDN's purge API, its answer turned into success or a {@link CdnPurgeError} that
 * says whether to try again: a network error, a 429 and a 5xx may pass, any other 4xx will not.
 * Shared by every forwarder, so that redaction and the bound on what a CDN may send back live
 * once. The reply is hostile input like any other: at most {@link MAX_REPLY_BYTES} of it is read.
 */
import { CdnPurgeError } from './types.ts';

/** The most bytes of a purge API's reply read (its error text); the rest is cancelled. */
export const MAX_REPLY_BYTES = 64 * 1024;
/** The most characters of the CDN's error text quoted in an error message. */
const MAX_QUOTED = 300;

/** A request to send. `secrets` are replaced by `***` wherever they would appear in an error. */
export interface ApiCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly secrets: readonly string[];
  /** For a 2xx: an error message when the reply reports a failure anyway (Cloudflare's `success: false`), else undefined. */
  readonly refuses?: (reply: unknown) => string | undefined;
}

/** Sends `call`; resolves when the API accepted it, rejects with a {@link CdnPurgeError} otherwise. */
export async function postPurge(name: string, call: ApiCall, signal: AbortSignal): Promise<void> {
  const hide = (text: string) => redact(text, call.secrets);
  let response: Response;
  try {
    response = await fetch(call.url, { method: 'POST', headers: call.headers, body: call.body, signal, redirect: 'manual' });
  } catch (error) {
    throw new CdnPurgeError(`cachette/cdn ${name}: purge request failed: ${hide(messageOf(error))}`, undefined, true);
  }
  const text = await boundedText(response);
  const reply = parseJson(text);
  const { status } = response;
  if (status >= 200 && status < 300) {
    const refused = call.refuses?.(reply);
    if (refused === undefined) return;
    throw new CdnPurgeError(`cachette/cdn ${name}: purge refused (HTTP ${status}): ${hide(refused)}`, status, false);
  }
  const retryable = status === 429 || status >= 500;
  const retryAfterMs = retryable ? retryAfter(response.headers.get('retry-after')) : undefined;
  throw new CdnPurgeError(`cachette/cdn ${name}: purge failed with HTTP ${status}: ${hide(errorText(reply, text))}`, status, retryable, retryAfterMs);
}

/** `Retry-After` in ms: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfter(field: string | null): number | undefined {
  if (field === null) return undefined;
  const value = field.trim();
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The CDN's own words for a failure: Cloudflare's `errors[]`, Vercel's `error`, Fastly's `msg`/`detail`, else the text. */
function errorText(reply: unknown, text: string): string {
  if (reply !== null && typeof reply === 'object') {
    const fields = reply as Record<string, unknown>;
    if (Array.isArray(fields.errors) && fields.errors.length > 0) return quote(fields.errors.map(describeError).join('; '));
    for (const name of ['error', 'msg', 'message', 'detail']) if (fields[name] !== undefined) return quote(describeError(fields[name]));
  }
  return text.length === 0 ? '(no body)' : quote(text);
}

/** One error object (`{ code, message }`) or value as text. */
export function describeError(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const { code, message } = error as Record<string, unknown>;
    if (message !== undefined) return code === undefined ? String(message) : `${String(code)} ${String(message)}`;
    return JSON.stringify(error);
  }
  return String(error);
}

function quote(text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}

/** `text` with every secret replaced by `***`. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.replaceAll(secret, '***');
  return out;
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch puts the reason (ECONNREFUSED, a TLS failure) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The reply's body as text, at most {@link MAX_REPLY_BYTES} of it. */
async function boundedText(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  try {
    while (read < MAX_REPLY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, MAX_REPLY_BYTES - read);
      read += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
  } catch {
    // A reply cut short still says what its status says.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text + decoder.decode();
}

/** A required string setting of a forwarder, checked when it is built (the value never appears in the error). */
export function requiredSetting(value: unknown, name: string, where: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`cachette/cdn ${where}: "${name}" must be a non-empty string`);
  return value;
}

/** `apiBase` without its trailing slashes, or the default; it must be an http(s) URL. */
export function apiBaseOf(value: unknown, fallback: string, where: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) throw new TypeError(`cachette/cdn ${where}: "apiBase" must be an http(s) URL`);
  let end = value.length;
  while (end > 0 && value[end - 1] === '/') end--;
  return value.slice(0, end);
}
