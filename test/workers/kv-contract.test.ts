import { env } from 'cloudflare:test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cloudflareKvStore } from '../../adapters/cloudflare-kv/index.ts';
import { storeContract } from '../contract/store-contract.ts';

storeContract({ describe, it, beforeAll, afterAll }, { name: 'cloudflare-kv', open: () => cloudflareKvStore({ namespace: env.CACHETTE_KV }) });
