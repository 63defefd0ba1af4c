// The 321 built-in contract templates. They are data, not code: src/contracts/templates/*.json
// hold compact records that this module expands into full definitions at first use.
//
// A record: {id, name, cat, desc?, vars?, flow, alt?}
//   flow  the happy path, e.g. "draft -submit-> review -approve[amount <= limit]-> approved!"
//   alt   further transitions in the same notation ("review -reject-> rejected!")
// Notation: a state is [a-z0-9_]+, a trailing '!' marks it terminal (once is enough). An edge is
//   -name[guard]{var = expr; var2 = expr2}@OP1,OP2->
// where guard, set block and operator list are optional. Transitions keep the order they are
// written in: all of flow first, then alt in order. Because a fire takes the first transition
// leaving the current state whose guard passes, each template's happy path is what repeated
// fires produce from its initial state with its sample variables.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractDefinition, StateDef, TransitionDef, VarValue } from './definition.ts';

export interface TemplateRecord {
  id: string;
  name: string;
  cat: string;
  desc?: string;
  vars?: Record<string, VarValue>;
  flow: string;
  alt?: string[];
}

export interface Template {
  id: string;
  name: string;
  category: string;
  definition: ContractDefinition;
  /** the compact record it was expanded from (`flow` is the designed happy path) */
  record: TemplateRecord;
}

export const TEMPLATE_VERSION = '1.0.0';
const DIR = join(dirname(fileURLToPath(import.meta.url)), 'templates');

let loaded: { list: Template[]; byId: Map<string, Template> } | null = null;

function load() {
  if (loaded) return loaded;
  const list: Template[] = [];
  const byId = new Map<string, Template>();
  for (const f of readdirSync(DIR).filter((x) => x.endsWith('.json')).sort()) {
    const records = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as TemplateRecord[];
    for (const r of records) {
      if (byId.has(r.id)) throw new Error(`duplicate contract template id ${r.id} (${f})`);
      const t: Template = { id: r.id, name: r.name, category: r.cat, definition: expandTemplate(r), record: r };
      list.push(t);
      byId.set(r.id, t);
    }
  }
  loaded = { list, byId };
  return loaded;
}

export function listTemplates(): Template[] {
  return load().list;
}

export function getTemplate(id: string): Template | undefined {
  return load().byId.get(id);
}

interface ParsedEdge { from: string; to: string; name: string; guard?: string; set?: Record<string, string>; operators?: string[] }

/** Parses one path in the notation above. Throws Error on a syntax error (a template bug). */
export function parseFlow(src: string): { states: { name: string; terminal: boolean }[]; edges: ParsedEdge[] } {
  let i = 0;
  const ws = () => { while (i < src.length && /\s/.test(src[i])) i++; };
  const fail = (msg: string): never => { throw new Error(`template flow: ${msg} at ${i} in "${src}"`); };
  const readState = () => {
    ws();
    const m = /^[a-z0-9_]+/.exec(src.slice(i));
    if (!m) fail('expected a state name');
    i += m![0].length;
    let terminal = false;
    if (src[i] === '!') { terminal = true; i++; }
    return { name: m![0], terminal };
  };
  const readBlock = (open: string, close: string) => {
    let depth = 0;
    const start = i + 1;
    for (; i < src.length; i++) {
      if (src[i] === open) depth++;
      else if (src[i] === close && --depth === 0) { i++; return src.slice(start, i - 1).trim(); }
    }
    return fail(`unclosed ${open}`);
  };
  const states = [readState()];
  const edges: ParsedEdge[] = [];
  for (;;) {
    ws();
    if (i >= src.length) break;
    if (src[i] !== '-') fail("expected '-name->'");
    i++;
    const m = /^[a-z0-9_]+/.exec(src.slice(i));
    if (!m) fail('expected a transition name');
    i += m![0].length;
    const edge: ParsedEdge = { from: states[states.length - 1].name, to: '', name: m![0] };
    if (src[i] === '[') edge.guard = readBlock('[', ']');
    if (src[i] === '{') {
      edge.set = {};
      for (const part of readBlock('{', '}').split(';')) {
        const eq = part.indexOf('=');
        if (eq < 0) fail(`assignment without '=' in "${part}"`);
        edge.set[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
      }
    }
    if (src[i] === '@') {
      const end = src.indexOf('->', i);
      edge.operators = src.slice(i + 1, end).split(',').map((s) => s.trim()).filter(Boolean);
      i = end;
    }
    if (src.slice(i, i + 2) !== '->') fail("expected '->'");
    i += 2;
    const to = readState();
    edge.to = to.name;
    states.push(to);
    edges.push(edge);
  }
  return { states, edges };
}

/** Expands a compact record into a full definition. */
export function expandTemplate(r: TemplateRecord): ContractDefinition {
  const order: string[] = [];
  const terminal = new Set<string>();
  const transitions: TransitionDef[] = [];
  for (const path of [r.flow, ...(r.alt ?? [])]) {
    const { states, edges } = parseFlow(path);
    for (const s of states) {
      if (!order.includes(s.name)) order.push(s.name);
      if (s.terminal) terminal.add(s.name);
    }
    for (const e of edges) {
      const t: TransitionDef = { from: e.from, to: e.to, name: e.name };
      if (e.guard) t.guard = e.guard;
      if (e.operators?.length) t.operators = e.operators;
      if (e.set && Object.keys(e.set).length) t.set = e.set;
      transitions.push(t);
    }
  }
  const states: StateDef[] = order.map((name) => (terminal.has(name) ? { name, terminal: true } : { name }));
  return {
    version: TEMPLATE_VERSION,
    name: r.name,
    description: r.desc ?? `${r.name}: a built-in workflow template (${r.cat}).`,
    initial: order[0],
    states,
    transitions,
    variables: { ...(r.vars ?? {}) },
    metadata: { templateId: r.id, category: r.cat },
  };
}
