// Building one source's record: canonical id from the ids it carries, year from the date,
// ids implied by others filled in. Records without any usable id or title are dropped by the
// adapters (a hit nobody can fetch again is not worth returning).
import { canonicalIdOf, completeIds } from './ids.ts';
import { collapse, yearOf } from './text.ts';
import type { PaperIds, PaperRecord, SourceName } from './types.ts';

export interface RecordParts {
  ids: PaperIds;
  title: string | null;
  authors: string[];
  date: string | null;
  venue: string | null;
  abstract: string | null;
  url?: string | null;
}

export function makeRecord(source: SourceName, p: RecordParts): PaperRecord | null {
  const ids = completeIds(p.ids);
  const id = canonicalIdOf(ids);
  const title = collapse(p.title);
  if (!id || !title) return null;
  return {
    id,
    title,
    authors: p.authors.map((a) => collapse(a)).filter((a): a is string => !!a),
    date: p.date,
    year: yearOf(p.date),
    venue: collapse(p.venue),
    abstract: collapse(p.abstract),
    url: p.url ?? null,
    ids,
    sources: [source],
  };
}

/** JSON.parse that names what it expected when the payload has the wrong shape. */
export function parseJsonObject(body: string, what: string): any {
  let j: unknown;
  try { j = JSON.parse(body); } catch (e) { throw new Error(`${what}: not JSON (${(e as Error).message.slice(0, 80)})`); }
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new Error(`${what}: expected a JSON object`);
  return j;
}

export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);
