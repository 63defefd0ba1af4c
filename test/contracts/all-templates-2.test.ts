// Templates 2/3 of the 321: deploy, fire to a terminal state, receipts and chains verify.
import { test } from 'node:test';
import { runTemplates } from './template-run.ts';

test('templates part 2 of 3: deploy and fire to a terminal state; receipts and chains verify', async () => {
  await runTemplates(1, 3);
});
