import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { keyNamespace } from '../../src/otel/key-namespace.ts';

describe('keyNamespace', () => {
  it('keeps the name before the first ":" or "("', () => {
    assert.equal(keyNamespace('user:42'), 'user');
    assert.equal(keyNamespace('user:42:profile'), 'user');
    assert.equal(keyNamespace('u:https://example.com/a?token=secret'), 'u');
    assert.equal(keyNamespace('getUser("42",{"full":true})'), 'getUser');
    assert.equal(keyNamespace('api.v2-report_x:1'), 'api.v2-report_x');
  });

  it('says nothing rather than guess when the key has no leading name', () => {
    assert.equal(keyNamespace('bob@example.com'), undefined);
    assert.equal(keyNamespace('bob@example.com:profile'), undefined);
    assert.equal(keyNamespace('homepage'), undefined);
    assert.equal(keyNamespace(':42'), undefined);
    assert.equal(keyNamespace(`${'a'.repeat(65)}:1`), undefined);
  });
});
