// cache.wrap and the decorators on Bun (standard decorators run natively), and encryption on Bun's WebCrypto:
// `bun test ./test/runtimes/bun/functions.bun.ts`.
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { encryptionSuite } from '../../cache/encryption-suite.ts';
import { wrapSuite } from '../../cache/wrap-suite.ts';
import { decoratorSuite } from '../../decorators/decorator-suite.ts';

const api = { describe, it, beforeAll, afterAll };
wrapSuite(api);
decoratorSuite(api);
encryptionSuite(api);
