/**
 * The URLs the PostgreSQL store accepts and how it names where it is in messages: `host:port/
 * database`, never the user's password (nor a `password=` in the query, which libpq accepts).
 */
import type { PgQueryable, PostgresConnection } from './connection.ts';

const PROTOCOLS = ['postgres:', 'postgresql:'];

/** Parses a PostgreSQL URL or throws a TypeError naming the accepted form, its secrets redacted. */
export function parsePostgresUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`postgresStore: ${JSON.stringify(redactUrl(url))} is not a URL; use postgres://user:password@host:5432/database`);
  }
  if (!PROTOCOLS.includes(parsed.protocol)) throw new TypeError(`postgresStore: "${parsed.protocol}" URLs are not PostgreSQL URLs; use postgres://user:password@host:5432/database`);
  return parsed;
}

/** `text` with a URL's password and secret query parameters replaced by `***`. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    for (const name of [...url.searchParams.keys()]) if (/pass|secret|token|key/i.test(name)) url.searchParams.set(name, '***');
    return url.toString();
  } catch {
    // Not a URL: whatever sits between a colon and an @ may be a password.
    return text.replace(/:[^:@/]*@/, ':***@');
  }
}

/** Where a URL points: `host:port/database`. */
export function urlAddress(url: string): string {
  const parsed = parsePostgresUrl(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || parsed.searchParams.get('host') || 'localhost';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres';
  return `${host}:${parsed.port || '5432'}/${database}`;
}

/** Where a connection the application passed points, as far as it says (a pg Pool's options, a Client's fields). */
export function connectionAddress(connection: PostgresConnection): string {
  const fields = connectionFields(connection);
  if (fields.connectionString) {
    try {
      return urlAddress(fields.connectionString);
    } catch {
      // Not a URL we read: fall back on the fields.
    }
  }
  const host = Array.isArray(fields.host) ? fields.host[0] : fields.host;
  const port = Array.isArray(fields.port) ? fields.port[0] : fields.port;
  return `${String(host ?? 'localhost')}:${String(port ?? 5432)}/${String(fields.database ?? 'postgres')}`;
}

interface ConnectionFields {
  connectionString?: string;
  host?: unknown;
  port?: unknown;
  database?: unknown;
}

function connectionFields(connection: PostgresConnection): ConnectionFields {
  // A pg Pool keeps its settings in `options`; a pg Client on itself.
  const options = (connection as { options?: ConnectionFields }).options;
  if (options && typeof options === 'object') return options;
  return connection as PgQueryable & ConnectionFields;
}
