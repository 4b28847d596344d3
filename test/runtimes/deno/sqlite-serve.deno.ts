// cachette/deno on CACHETTE_STORE=sqlite (node:sqlite): `deno test -A --no-check test/runtimes/deno/sqlite-serve.deno.ts`.
import { serve } from '../../../runtimes/deno/index.ts';
import { sqliteServeSuite } from '../sqlite-serve-suite.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

sqliteServeSuite(denoRunner(), 'deno', serve, 'node:sqlite');
