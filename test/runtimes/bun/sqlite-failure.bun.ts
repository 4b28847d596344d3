// The SQLite store's failure paths on bun:sqlite: `bun test ./test/runtimes/bun/sqlite-failure.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { sqliteFailureSuite } from '../../adapters/sqlite-failure-suite.ts';

sqliteFailureSuite({ describe, it, beforeAll, afterAll }, 'bun');
