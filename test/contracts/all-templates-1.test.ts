// Templates 1/3 of the 321: deploy, fire to a terminal state, receipts and chains verify.
import { test } from 'node:test';
import { runTemplates } from './template-run.ts';

test('templates part 1 of 3: deploy and fire to a terminal state; receipts and chains verify', async () => {
  await runTemplates(0, 3);
});
