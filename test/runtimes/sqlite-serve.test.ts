import { afterAll, beforeAll, describe, it } from 'vitest';
import { serve } from '../../runtimes/node/index.ts';
import { sqliteServeSuite } from './sqlite-serve-suite.ts';

sqliteServeSuite({ describe, it, beforeAll, afterAll }, 'node', serve, 'better-sqlite3');
