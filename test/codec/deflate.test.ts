import { afterAll, beforeAll, describe, it } from 'vitest';
import { deflateSuite } from './deflate-suite.ts';

deflateSuite({ describe, it, beforeAll, afterAll });
