import { afterAll, beforeAll, describe, it } from 'vitest';
import { wrapSuite } from './wrap-suite.ts';

wrapSuite({ describe, it, beforeAll, afterAll });
