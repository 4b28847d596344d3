import { afterAll, beforeAll, describe, it } from 'vitest';
import { decoratorSuite } from './decorator-suite.ts';

decoratorSuite({ describe, it, beforeAll, afterAll });
