// cache.wrap and the decorators on Deno (standard decorators run natively), and encryption on Deno's WebCrypto:
// `deno test -A --no-check test/runtimes/deno/functions.deno.ts`.
import { encryptionSuite } from '../../cache/encryption-suite.ts';
import { wrapSuite } from '../../cache/wrap-suite.ts';
import { decoratorSuite } from '../../decorators/decorator-suite.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';

const api = denoRunner();
wrapSuite(api);
decoratorSuite(api);
encryptionSuite(api);
