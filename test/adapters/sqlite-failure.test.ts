import { afterAll, beforeAll, describe, it } from 'vitest';
import { sqliteFailureSuite } from './sqlite-failure-suite.ts';

sqliteFailureSuite({ describe, it, beforeAll, afterAll }, 'node');
