// cachette/bun on CACHETTE_STORE=sqlite (bun:sqlite): `bun test ./test/runtimes/bun/sqlite-serve.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { serve } from '../../../runtimes/bun/index.ts';
import { sqliteServeSuite } from '../sqlite-serve-suite.ts';

sqliteServeSuite({ describe, it, beforeAll, afterAll }, 'bun', serve, 'bun:sqlite');
