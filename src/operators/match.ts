// svc_domain_match: deterministic term overlap between a text (or an id) and each domain's
// vocabulary. Not a solvability proof. Text and vocabulary are tokenized the same way
// (lower case, split on non-alphanumerics, stemmed: src/core/text.ts), and a vocabulary
// term fires when all its tokens occur consecutively in the text. Score = sum over fired terms
// of the term's token count (a phrase counts more than a single word) + 1 per word of the
// domain name found in the text. Ties are broken by domain name, so the order is stable.
import { loadCatalog, getOperator, resolveDomain } from './catalog.ts';
import type { DomainDef } from './types.ts';
import { STOP_WORDS, stem, words } from '../core/text.ts';

export const MATCH_DEFAULT_LIMIT = 5;
export const MATCH_MAX_LIMIT = 12;


/** Stemmed words of a text (the text toolkit's words and stemmer). */
export function matchTokens(text: string): string[] {
  return words(text).map(stem);
}

interface PreparedDomain { domain: DomainDef; terms: { term: string; tokens: string[] }[]; nameTokens: string[] }
let prepared: PreparedDomain[] | null = null;

function prepare(): PreparedDomain[] {
  return loadCatalog().domains.map((d) => ({
    domain: d,
    terms: d.vocabulary.map((term) => ({ term, tokens: matchTokens(term) })).filter((x) => x.tokens.length > 0),
    nameTokens: [...new Set(matchTokens(d.name).filter((t) => !STOP_WORDS.has(t)))],
  }));
}

function containsPhrase(hay: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export interface DomainMatch {
  name: string;
  slug: string;
  code: string;
  score: number;
  terms: string[];
  defaultOperator: string;
}

/** The text an id stands for: an operator's name, domain and description, or a domain's name and description. */
export function textForId(id: string): { text: string; resolved: string | null } {
  const op = getOperator(id);
  if (op) return { text: `${op.name} ${op.description} ${op.domain}`, resolved: `operator:${op.id}` };
  const d = resolveDomain(id);
  if (d) return { text: `${d.name} ${d.description} ${d.vocabulary.join(' ')}`, resolved: `domain:${d.slug}` };
  return { text: id.replace(/^[a-z-]+:/i, ' '), resolved: null };
}

export function matchDomains(text: string, limit = MATCH_DEFAULT_LIMIT): DomainMatch[] {
  prepared ??= prepare();
  const tokens = matchTokens(text);
  const tokenSet = new Set(tokens);
  const n = Math.max(1, Math.min(MATCH_MAX_LIMIT, Math.floor(limit)));
  const out: DomainMatch[] = [];
  for (const p of prepared) {
    let score = 0;
    const fired: string[] = [];
    for (const t of p.terms) {
      if (containsPhrase(tokens, t.tokens)) {
        score += t.tokens.length;
        fired.push(t.term);
      }
    }
    for (const w of p.nameTokens) if (tokenSet.has(w)) score += 1;
    if (score > 0) out.push({ name: p.domain.name, slug: p.domain.slug, code: p.domain.code, score, terms: fired, defaultOperator: p.domain.defaultOperator });
  }
  out.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return out.slice(0, n);
}
