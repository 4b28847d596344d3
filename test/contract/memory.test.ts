import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { storeContract } from './store-contract.ts';

storeContract({ describe, it, beforeAll, afterAll }, { name: 'memory', open: () => memoryStore() });
