// The SQLite store's failure paths on node:sqlite: `deno test -A --no-check test/runtimes/deno/sqlite-failure.deno.ts`.
import { sqliteFailureSuite } from '../../adapters/sqlite-failure-suite.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

sqliteFailureSuite(denoRunner(), 'deno');
