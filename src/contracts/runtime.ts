// The contract runtime on the store: deploy, list, get and fire. A fire is one database
// transaction that (1) locks the contract row (SELECT … FOR UPDATE), (2) runs the pure step of
// machine.ts on what it read, (3) seals a v1 receipt and appends the chain entry through
// Sealer.sealInTx (which locks the machine row, charges the token and writes receipt + entry),
// (4) writes the new state, fire count and variables and the contract_fires row. All of it
// commits together or not at all, and concurrent fires on one contract queue on the row lock,
// so N concurrent fires advance a contract exactly as N sequential fires would.
//
// Ownership: every query is scoped by the caller's zid, and "someone else's contract" is
// indistinguishable from "no such contract" (both NOT_FOUND).
import { SvcError } from '../core/errors.ts';
import { pulseAt } from '../core/clock.ts';
import { canonicalJson } from '../core/canonical.ts';
import { sha256Hex, ulid } from '../core/ids.ts';
import { appendToChain } from '../services/chain.ts';
import type { App } from '../ops/types.ts';
import type { Queryable } from '../store/db.ts';
import type { SealedResponse } from '../services/seal-batch.ts';
import { validateDefinition, assertDefinitionSize, type ContractDefinition, type VarValue } from './definition.ts';
import { fireOnce, initialSnapshot, isTerminal, type ContractSnapshot } from './machine.ts';
import { getTemplate } from './templates.ts';
import { evaluateContractOperators, operatorInputs, sealOperators } from './operators.ts';

/** Compute tokens one fire costs: a fire is a sealed receipt, and every seal is charged. */
export const FIRE_COST = 1;
/** Folder the fire receipts are filed in. */
export const CONTRACT_FOLDER = 'contracts';

export interface Signer {
  zid: string;
  keyPrefix: string;
}

interface ContractRow {
  id: string;
  zid: string;
  name: string;
  template_id: string | null;
  version: string;
  definition: string;
  definition_hash: string;
  state: string;
  terminal: boolean;
  fire_count: number;
  variables: string;
  entered_t: number;
  created_t: number;
  deploy_chain_seq: number;
  created_at: string | Date;
  updated_at: string | Date;
}

const iso = (v: string | Date) => new Date(v).toISOString();

export function definitionHash(def: ContractDefinition): string {
  return sha256Hex(canonicalJson(def));
}

function available(def: ContractDefinition, state: string) {
  return def.transitions
    .filter((t) => t.from === state)
    .map((t) => ({ name: t.name, to: t.to, ...(t.guard ? { guard: t.guard } : {}), ...(t.operators ? { operators: t.operators } : {}) }));
}

function summary(row: ContractRow) {
  return {
    id: row.id,
    name: row.name,
    templateId: row.template_id,
    state: row.state,
    fireCount: Number(row.fire_count),
    terminal: row.terminal,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function snapshotOf(row: ContractRow): ContractSnapshot {
  return {
    state: row.state,
    fireCount: Number(row.fire_count),
    variables: JSON.parse(row.variables),
    enteredAt: Number(row.entered_t),
    createdAt: Number(row.created_t),
  };
}

export interface DeployRequest {
  templateId?: string;
  definition?: unknown;
  variables?: Record<string, VarValue>;
  name?: string;
}

export async function deployContract(app: App, who: Signer, req: DeployRequest) {
  const given = (req.templateId !== undefined ? 1 : 0) + (req.definition !== undefined ? 1 : 0);
  if (given !== 1) {
    throw new SvcError('INVALID_INPUT', 'give exactly one of templateId or definition', {
      issues: [{ path: given ? 'definition' : 'templateId', message: 'exactly one of templateId or definition is required' }],
    });
  }
  let definition: ContractDefinition;
  let templateId: string | null = null;
  if (req.templateId !== undefined) {
    const tpl = getTemplate(req.templateId);
    if (!tpl) throw new SvcError('NOT_FOUND', `no contract template '${req.templateId}' (svc_contract_templates lists the 321)`);
    templateId = tpl.id;
    definition = structuredClone(tpl.definition);
  } else {
    assertDefinitionSize(req.definition);
    definition = validateDefinition(req.definition, { pathPrefix: 'definition', operatorInputs });
  }
  if (req.name !== undefined) definition.name = req.name;
  const t = app.clock.now();
  const snap = initialSnapshot(definition, t, req.variables);
  const id = 'ct_' + ulid(Math.floor(t * 1000));
  const defJson = JSON.stringify(definition);
  const hash = definitionHash(definition);
  const version = String(definition.version);
  return app.db.tx(async (q) => {
    // the chain entry first (it locks the machine row), then the contract row that points at it
    const [entry] = await appendToChain(q, who.zid, [{
      kind: 'contract.deploy',
      ref: id,
      payload: { contractId: id, name: definition.name, version, templateId, definitionHash: hash, state: snap.state, variables: snap.variables },
      at: new Date(t * 1000).toISOString(),
    }]);
    await q.query(
      `INSERT INTO contracts (id, zid, name, template_id, version, definition, definition_hash, state, terminal, fire_count, variables, entered_t, created_t, deploy_chain_seq)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,false,0,$9,$10,$10,$11)`,
      [id, who.zid, definition.name, templateId, version, defJson, hash, snap.state, JSON.stringify(snap.variables), t, entry.seq]);
    return {
      ok: true,
      id,
      name: definition.name,
      templateId,
      version,
      state: snap.state,
      fireCount: 0,
      terminal: false,
      variables: snap.variables,
      definitionHash: hash,
      chain: { seq: entry.seq, hash: entry.hash },
      next: available(definition, snap.state),
    };
  });
}

export async function listContracts(app: App, zid: string, opts: { limit: number; before?: string }) {
  const rows = await app.db.query<ContractRow>(
    `SELECT id, zid, name, template_id, state, terminal, fire_count, created_at, updated_at FROM contracts
      WHERE zid = $1 AND ($2::text IS NULL OR id < $2::text) ORDER BY id DESC LIMIT $3`,
    [zid, opts.before ?? null, opts.limit]);
  const [{ n }] = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM contracts WHERE zid = $1', [zid]);
  return {
    ok: true,
    total: Number(n),
    contracts: rows.map(summary),
    next: rows.length === opts.limit ? rows[rows.length - 1].id : null,
  };
}

async function loadOwned(q: Queryable, zid: string, id: string, lock: boolean): Promise<ContractRow> {
  const rows = await q.query<ContractRow>(`SELECT * FROM contracts WHERE id = $1 AND zid = $2${lock ? ' FOR UPDATE' : ''}`, [id, zid]);
  if (!rows.length) throw new SvcError('NOT_FOUND', 'contract not found');
  return rows[0];
}

export async function getContract(app: App, zid: string, id: string, historyLimit = 50) {
  const row = await loadOwned(app.db, zid, id, false);
  const def = JSON.parse(row.definition) as ContractDefinition;
  const fires = await app.db.query<any>(
    `SELECT seq, transition, from_state, to_state, receipt_id, chain_seq, t FROM contract_fires
      WHERE contract_id = $1 ORDER BY seq DESC LIMIT $2`, [id, historyLimit]);
  return {
    ok: true,
    ...summary(row),
    version: row.version,
    variables: JSON.parse(row.variables),
    enteredAt: Number(row.entered_t),
    deployedAt: Number(row.created_t),
    definitionHash: row.definition_hash,
    deployChainSeq: Number(row.deploy_chain_seq),
    next: row.terminal ? [] : available(def, row.state),
    history: fires.map((f) => ({
      seq: Number(f.seq), transition: f.transition, from: f.from_state, to: f.to_state,
      receiptId: f.receipt_id, chainSeq: Number(f.chain_seq), t: Number(f.t),
    })),
    definition: def,
  };
}

export interface FireRequest {
  transition?: string;
  variables?: Record<string, VarValue>;
  /** folder the fire's receipt is filed in (default CONTRACT_FOLDER) */
  folder?: string;
}

export async function fireContract(app: App, who: Signer, id: string, req: FireRequest) {
  let committed: SealedResponse | null = null;
  const out = await app.db.tx(async (q) => {
    const row = await loadOwned(q, who.zid, id, true);
    const def = JSON.parse(row.definition) as ContractDefinition;
    const snap = snapshotOf(row);
    const t = app.clock.now();
    const pulse = pulseAt(t);
    const outcome = fireOnce(def, snap, {
      t, phase: pulse.phase, svcond: pulse.svcond,
      transition: req.transition,
      variables: req.variables,
      evaluateOperators: (ids, vars) => evaluateContractOperators(ids, vars, pulse),
    });
    if (!outcome.fired) {
      return {
        ok: true,
        fired: false,
        reason: outcome.reason,
        guard: outcome.guard,
        values: outcome.values,
        blocked: outcome.blocked,
        contract: { id: row.id, name: row.name, state: row.state, fireCount: Number(row.fire_count), terminal: row.terminal },
        next: outcome.terminal ? [] : available(def, row.state),
      };
    }
    const next = outcome.next;
    const terminal = isTerminal(def, next.state);
    const operators = sealOperators(outcome.transition.operators);
    const sealed = await app.sealer.sealInTx(q, {
      zid: who.zid,
      keyPrefix: who.keyPrefix,
      solver: 'contract',
      domain: 'State Contracts',
      method: 'state-machine',
      operators,
      version: 1,
      body: {
        fired: true,
        contract: {
          id: row.id, name: row.name, definitionHash: row.definition_hash,
          previousState: outcome.from, state: next.state, fireCount: next.fireCount, terminal, variables: next.variables,
        },
        transition: { name: outcome.transition.name, from: outcome.from, to: outcome.to, index: outcome.index },
        guard: outcome.transition.guard ? { expression: outcome.transition.guard, values: outcome.values } : null,
        ...(Object.keys(outcome.operatorOutputs).length ? { operatorOutputs: outcome.operatorOutputs } : {}),
        // the transitions available next are part of the sealed body, so the answer is the receipt
        // exactly as logged (its digest covers every field)
        next: terminal ? [] : available(def, next.state),
      },
      folder: req.folder ?? CONTRACT_FOLDER,
      cost: FIRE_COST,
      kind: 'contract.fire',
      t,
    });
    // new state and the history row in one statement
    await q.query(
      `WITH moved AS (
         UPDATE contracts SET state = $2, terminal = $3, fire_count = $4, variables = $5, entered_t = $6, updated_at = now()
          WHERE id = $1 RETURNING id)
       INSERT INTO contract_fires (contract_id, seq, transition, from_state, to_state, receipt_id, chain_seq, t, variables)
       SELECT id, $4, $7, $8, $2, $9, $10, $6, $5 FROM moved`,
      [row.id, next.state, terminal, next.fireCount, JSON.stringify(next.variables), t, outcome.transition.name, outcome.from, sealed.receipt.id, sealed.receipt.chain.seq]);
    committed = sealed;
    return sealed;
  });
  if (committed) app.sealer.announce(who.zid, committed);
  return out;
}
