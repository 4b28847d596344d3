import { afterAll, beforeAll, describe, it } from 'vitest';
import { deflateSuite } from '../codec/deflate-suite.ts';

// In workerd (nodejs_compat): node:zlib reached through process.getBuiltinModule, against fflate.
deflateSuite({ describe, it, beforeAll, afterAll });
