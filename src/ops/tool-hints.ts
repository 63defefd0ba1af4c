// What the tools declare besides their input (issue 21): the behaviour hints several operations
// share, and the answer every sealed computation gives, as a schema (zod 4) that becomes the MCP
// `outputSchema`. Objects stay open: an answer may carry more fields than are listed.
import { z } from 'zod';
import type { ToolHints } from './types.ts';

/** A look-up: changes nothing, so calling it again changes nothing either. */
export const LOOKUP: ToolHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false };
/** A sealed computation: charges tokens and appends a receipt to the caller's chain (a second
 * call seals a second receipt), deletes nothing, reaches nothing outside the node. */
export const SEALING: ToolHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
/** Creates something new (a machine, a contract, a message, a channel) each time it is called. */
export const CREATES: ToolHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };

/** A sealed computation's answer (DESIGN §7): value and unit, the named outputs (`result`), the
 * check against an independent reference (`precision`: every solver has one) and the receipt.
 * Only the top level is declared: the instructions describe the blocks, and every tool pays for
 * the size of its schema in `tools/list`. */
export function sealedResult(opts: { precision?: boolean } = {}) {
  const block = z.record(z.string(), z.unknown());
  return z.object({
    value: z.number(),
    unit: z.string(),
    result: block,
    precision: opts.precision === false ? block.optional() : block,
    receipt: block,
  });
}
