import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testNode } from '../helpers.ts';

test('a URL with malformed percent-encoding is a 400 error body, not the framework\'s own', async () => {
  const t = await testNode();
  try {
    for (const path of ['/api/folders/%E0%A4%A/receipts', '/api/receipts/%zz', '/s/%ff%fe/']) {
      const r = await t.call('GET', path);
      assert.ok(r.status >= 400 && r.status < 500, `${path}: ${r.status}`);
      assert.equal(r.body.ok, false);
      assert.equal(typeof r.body.code, 'string');
    }
  } finally { await t.close(); }
});
