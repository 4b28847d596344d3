// Native and portable raw DEFLATE on Bun: `bun test ./test/runtimes/bun/deflate.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { deflateSuite } from '../../codec/deflate-suite.ts';

deflateSuite({ describe, it, beforeAll, afterAll });
