// cachette/drizzle on PostgreSQL (PGlite: real PostgreSQL in WASM, in npm test everywhere) and
// on SQLite (Drizzle's asynchronous proxy driver over better-sqlite3), over memory and redis.
import { pglite, sqliteProxy } from './databases.ts';
import { drizzleSuite } from './drizzle-suite.ts';

drizzleSuite(pglite);
drizzleSuite(sqliteProxy);
