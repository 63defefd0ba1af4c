// The foundation state machine: the lifecycle every machine runs, written as a contract
// definition in the same format (and checked by the same validator in the tests). A machine's
// current lifecycle state is derived from its row (machines.state) and its own chain: the chain
// is the audit trail of every lifecycle event (genesis, key.minted, key.revoked, key.recovered).
import type { Queryable } from '../store/db.ts';
import type { ContractDefinition } from './definition.ts';

export const FOUNDATION: ContractDefinition = {
  version: '1.0.0',
  name: 'Machine foundation lifecycle',
  description: 'The lifecycle of every machine on this node. A machine is provisioned by svc_spin_up (the genesis chain entry), becomes active when its first compute key is minted, can be suspended and reinstated by the operator, can lose all keys (locked) and be recovered with its recovery equation (key.recovered: every old key revoked, one new key), and is finally retired. Each event is an entry on the machine\'s own hash chain.',
  initial: 'provisioned',
  states: [
    { name: 'provisioned', description: 'ZID allocated, recovery material issued, chain seeded with its genesis entry' },
    { name: 'active', description: 'holds a live svc_ak_ key; may seal, deploy contracts, publish and receive mail' },
    { name: 'suspended', description: 'keys refused by the node operator; chain and data kept' },
    { name: 'locked', description: 'every key revoked; only recovery can mint a new one' },
    { name: 'recovered', description: 'recovery equation proved; old keys revoked and a single new key minted (chain entry key.recovered)' },
    { name: 'retired', terminal: true, description: 'permanently closed; the chain stays verifiable' },
  ],
  transitions: [
    { from: 'provisioned', to: 'active', name: 'mint_first_key', description: 'chain entry key.minted, written with the genesis entry at spin-up' },
    { from: 'active', to: 'active', name: 'rotate_key', description: 'a key replaced; chain entry key.*' },
    { from: 'active', to: 'suspended', name: 'suspend', description: 'operator action (admin)' },
    { from: 'suspended', to: 'active', name: 'reinstate', description: 'operator action (admin)' },
    { from: 'active', to: 'locked', name: 'revoke_all_keys', description: 'chain entry key.revoked' },
    { from: 'active', to: 'recovered', name: 'recover', description: 'POST /api/machines/recover; chain entry key.recovered' },
    { from: 'locked', to: 'recovered', name: 'recover_locked', description: 'POST /api/machines/recover; chain entry key.recovered' },
    { from: 'suspended', to: 'recovered', name: 'recover_suspended', description: 'recovery proves ownership but does not lift a suspension by itself' },
    { from: 'recovered', to: 'active', name: 'resume', description: 'the new key is used' },
    { from: 'active', to: 'retired', name: 'retire' },
    { from: 'suspended', to: 'retired', name: 'retire_suspended' },
    { from: 'locked', to: 'retired', name: 'retire_locked' },
  ],
  variables: {},
};

const KEY_EVENTS = ['genesis', 'key.minted', 'key.revoked', 'key.recovered', 'key.rotated'];

/** The machine's current lifecycle state and its chain anchor. */
export async function foundationStatus(q: Queryable, zid: string) {
  const rows = await q.query<any>('SELECT zid, slug, state, chain_seq, chain_head, created_at FROM machines WHERE zid = $1', [zid]);
  if (!rows.length) return null;
  const m = rows[0];
  const [genesis] = await q.query<any>('SELECT hash, at FROM chain_entries WHERE zid = $1 AND seq = 1', [zid]);
  const [lastKey] = await q.query<any>(
    'SELECT kind, seq, at FROM chain_entries WHERE zid = $1 AND kind = ANY($2::text[]) ORDER BY seq DESC LIMIT 1', [zid, KEY_EVENTS]);
  const [{ n: activeKeys }] = await q.query<any>('SELECT count(*)::int AS n FROM api_keys WHERE zid = $1 AND revoked_at IS NULL', [zid]);
  let state: string;
  if (m.state && m.state !== 'active') state = m.state;
  else if (!lastKey || lastKey.kind === 'genesis') state = 'provisioned';
  else if (Number(activeKeys) === 0) state = 'locked';
  else if (lastKey.kind === 'key.recovered') state = 'recovered';
  else state = 'active';
  return {
    zid: m.zid,
    slug: m.slug,
    state,
    lastLifecycleEvent: lastKey ? { kind: lastKey.kind, seq: Number(lastKey.seq), at: lastKey.at } : null,
    chain: {
      length: Number(m.chain_seq),
      head: m.chain_head,
      genesis: genesis ? { seq: 1, hash: genesis.hash, at: genesis.at } : null,
    },
    since: new Date(m.created_at).toISOString(),
  };
}
