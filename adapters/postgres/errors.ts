/**
 * How a failure of the PostgreSQL store reaches the cache: a StoreError that names the store
 * and where it is (`postgres host:port/database`, never a password), with the driver's error as
 * its cause. The class tells the cache what happened: unreachable (a connection could not be
 * opened or broke), refused (this one call: a value PostgreSQL will not take, an increment of
 * something that is not a counter), or any other failure of the server.
 */
import { StoreError, StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';

// SQLSTATE classes (PostgreSQL, Appendix A): 08 connection exception, 57P01-57P03 the server
// shutting down or starting; 22 data exception, 54 program limit exceeded (an index row too big).
const UNAVAILABLE = /^(08|57P0[123])/;
const REFUSED = /^(22|54)/;

/** `error` (what the driver threw) as the StoreError the store rejects with; `secret`, when given, is replaced by `***` wherever it appears. */
export function storeFailure(error: unknown, store: string, secret: string | undefined): StoreError {
  const raw = error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error.name) : String(error);
  const message = `${store}: ${secret ? raw.split(secret).join('***') : raw}`;
  const code = (error as { code?: unknown } | null)?.code;
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlState === undefined || UNAVAILABLE.test(sqlState)) return new StoreUnavailableError(message, { cause: error });
  if (REFUSED.test(sqlState)) return new StoreRefusedError(`${message} (SQLSTATE ${sqlState})`, { cause: error });
  return new StoreError(`${message} (SQLSTATE ${sqlState})`, { cause: error });
}
