// Canonical ids 'scheme:local' and the normalisation of each scheme's local part, so that the
// same work reported by different sources gets the same key. DOIs are case-insensitive
// (DOI Handbook §2.4) and are kept lower-case; arXiv ids drop their version suffix.
import { SCHEMES, type PaperIds, type Scheme, type Lookup } from './types.ts';

export const MAX_ID_LENGTH = 300;

/** 10.<registrant>/<suffix>; the suffix may hold any printable character (Crossref's advice is a
 * superset of /^10.\d{4,9}\/[-._;()/:A-Z0-9]+$/i, so only spaces and control characters are refused). */
const DOI_RE = /^10\.\d{4,9}\/[^\s\u0000-\u001f\u007f]+$/;
const ARXIV_NEW_RE = /^(\d{4}\.\d{4,5})(v\d+)?$/;
const ARXIV_OLD_RE = /^([a-z-]+(?:\.[A-Za-z]{2})?\/\d{7})(v\d+)?$/;
const PMID_RE = /^[1-9]\d{0,9}$/;
const OPENALEX_RE = /^[Ww]\d{1,12}$/;
const S2_RE = /^(?:[0-9a-f]{40}|CorpusId:\d{1,12})$/;
/** bioRxiv/medRxiv DOI suffixes: 2024.04.01.587366 (bioRxiv since Dec 2019, 6 digits),
 * 2020.02.25.20021568 (medRxiv, 8 digits) or 097196 (bioRxiv before Dec 2019) */
const BIORXIV_RE = /^(\d{4}\.\d{2}\.\d{2}\.\d{6,8}|\d{6})(v\d+)?$/;

/** A DOI in any of the forms sources print it (https://doi.org/…, doi:…, upper case) → '10.x/y', or null. */
export function normalizeDoi(raw: string | null | undefined): string | null {
  if (!raw) return null;
  let s = String(raw).trim();
  s = s.replace(/^https?:\/\/(?:dx\.)?doi\.org\//i, '').replace(/^doi:\s*/i, '');
  if (/%2f/i.test(s)) { try { s = decodeURIComponent(s); } catch { /* keep as is */ } }
  s = s.toLowerCase();
  return DOI_RE.test(s) && s.length <= MAX_ID_LENGTH ? s : null;
}

/** arXiv id without version (and without an 'arXiv:' prefix or abs/pdf URL), or null. */
export function normalizeArxiv(raw: string | null | undefined): string | null {
  if (!raw) return null;
  let s = String(raw).trim().replace(/^arxiv:/i, '');
  const url = /arxiv\.org\/(?:abs|pdf)\/(.+?)(?:\.pdf)?$/i.exec(s);
  if (url) s = url[1];
  let m = ARXIV_NEW_RE.exec(s);
  if (m) return m[1];
  m = ARXIV_OLD_RE.exec(s);
  return m ? m[1] : null;
}

export function arxivVersion(raw: string): number | null {
  const m = /v(\d+)$/.exec(raw.trim());
  return m ? Number(m[1]) : null;
}

export function normalizePmid(raw: string | number | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  let s = String(raw).trim().replace(/^https?:\/\/pubmed\.ncbi\.nlm\.nih\.gov\//i, '').replace(/\/$/, '');
  s = s.replace(/^0+/, '');
  return PMID_RE.test(s) ? s : null;
}

export function normalizeOpenalex(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const s = String(raw).trim().replace(/^https?:\/\/openalex\.org\//i, '');
  return OPENALEX_RE.test(s) ? s.toUpperCase() : null;
}

export function normalizeS2(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const s = String(raw).trim();
  if (/^[0-9a-fA-F]{40}$/.test(s)) return s.toLowerCase();
  const c = /^corpusid:(\d{1,12})$/i.exec(s);
  return c ? `CorpusId:${c[1]}` : null;
}

/** bioRxiv/medRxiv local part: the DOI suffix after 10.1101/, without version. */
export function normalizeBiorxiv(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const s = String(raw).trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/)?10\.1101\//i, '');
  const m = BIORXIV_RE.exec(s);
  return m ? m[1] : null;
}

/** The bioRxiv/medRxiv suffix of a 10.1101 DOI, when it has the preprint shape. */
export function biorxivFromDoi(doi: string | null | undefined): string | null {
  if (!doi || !doi.startsWith('10.1101/')) return null;
  return normalizeBiorxiv(doi);
}

/** The arXiv id of a DataCite arXiv DOI (10.48550/arXiv.2304.05376). */
export function arxivFromDoi(doi: string | null | undefined): string | null {
  if (!doi) return null;
  const m = /^10\.48550\/arxiv\.(.+)$/i.exec(doi);
  return m ? normalizeArxiv(m[1]) : null;
}

const NORMALIZERS: Record<Scheme, (s: string) => string | null> = {
  doi: normalizeDoi,
  pmid: normalizePmid,
  arxiv: normalizeArxiv,
  biorxiv: normalizeBiorxiv,
  openalex: normalizeOpenalex,
  s2: normalizeS2,
};

export interface ParsedId extends Lookup {
  canonical: string;
}

/** Parses 'scheme:local'. Returns a message explaining the refusal instead of throwing, so the
 * caller can wrap it in its own error type. */
export function parseCanonicalId(raw: string): ParsedId | { error: string } {
  if (typeof raw !== 'string' || raw.length === 0) return { error: 'id is empty' };
  if (raw.length > MAX_ID_LENGTH) return { error: `id is longer than ${MAX_ID_LENGTH} characters` };
  const i = raw.indexOf(':');
  if (i <= 0) return { error: `id must have the form scheme:local with scheme one of ${SCHEMES.join(', ')}` };
  const scheme = raw.slice(0, i).trim().toLowerCase();
  const local = raw.slice(i + 1).trim();
  if (!(SCHEMES as readonly string[]).includes(scheme)) return { error: `unknown id scheme '${scheme.slice(0, 20)}'; expected one of ${SCHEMES.join(', ')}` };
  if (!local) return { error: `id '${scheme}:' has an empty local part` };
  const value = NORMALIZERS[scheme as Scheme](local);
  if (!value) return { error: `'${local.slice(0, 80)}' is not a valid ${scheme} identifier` };
  return { scheme: scheme as Scheme, value, canonical: `${scheme}:${value}` };
}

/** The canonical id of a record from the ids it carries (doi > pmid > arxiv > biorxiv > openalex > s2). */
export function canonicalIdOf(ids: PaperIds): string | null {
  for (const s of SCHEMES) {
    const v = ids[s];
    if (v) return `${s}:${v}`;
  }
  return null;
}

/** Removes undefined/empty entries and fills the ids implied by others (a 10.1101 DOI names a
 * bioRxiv/medRxiv preprint; a 10.48550 DOI names an arXiv paper). */
export function completeIds(ids: PaperIds): PaperIds {
  const out: PaperIds = {};
  for (const [k, v] of Object.entries(ids)) if (v) (out as any)[k] = v;
  if (out.doi) { const d = normalizeDoi(out.doi); if (d) out.doi = d; else delete out.doi; }
  if (out.doi && !out.biorxiv) { const b = biorxivFromDoi(out.doi); if (b) out.biorxiv = b; }
  if (out.doi && !out.arxiv) { const a = arxivFromDoi(out.doi); if (a) out.arxiv = a; }
  return out;
}
