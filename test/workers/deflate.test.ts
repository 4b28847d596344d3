import { afterAll, beforeAll, describe, it } from 'vitest';
import { encryptionSuite } from '../cache/encryption-suite.ts';
import { deflateSuite } from '../codec/deflate-suite.ts';

// In workerd (nodejs_compat): node:zlib reached through process.getBuiltinModule, against fflate.
deflateSuite({ describe, it, beforeAll, afterAll });
// encryption on workerd's WebCrypto.
encryptionSuite({ describe, it, beforeAll, afterAll });
