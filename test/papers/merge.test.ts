// Deduplication and ranking: the same work found by several sources becomes one record that
// lists them all; different works (even with equal titles) stay apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArxivFeed } from '../../src/papers/preprint.ts';
import { parseCrossrefList } from '../../src/papers/doi-registry.ts';
import { parseEfetch } from '../../src/papers/biomedical-index.ts';
import { parseS2Search } from '../../src/papers/semantic-index.ts';
import { mergeAndRank, mergeRecords, clusterHits, RRF_K } from '../../src/papers/merge.ts';
import { makeRecord } from '../../src/papers/record.ts';
import { fixture } from './replay.ts';

const P1_DOI = '10.5555/svc.heat.2023.001';

const arxiv = () => parseArxivFeed(fixture('arxiv/search-legacy.xml')).records;
const crossref = () => parseCrossrefList(fixture('crossref/search-p1.json')).records;
const pubmed = () => parseEfetch(fixture('pubmed/efetch-37011111_36022222.xml'));
const s2 = () => parseS2Search(fixture('semanticscholar/search-p1.json')).records;

test('the same paper found by three sources is one record listing all three', () => {
  const out = mergeAndRank('heat equation', [
    { source: 'preprint', records: arxiv() },
    { source: 'doi-registry', records: crossref() },
    { source: 'biomedical-index', records: pubmed() },
  ], 20);
  const p1 = out.filter((r) => r.ids.doi === P1_DOI);
  assert.equal(p1.length, 1);
  const r = p1[0];
  assert.equal(r.id, `doi:${P1_DOI}`);
  assert.deepEqual(r.sources, ['preprint', 'doi-registry', 'biomedical-index']);
  assert.deepEqual(r.ids, { doi: P1_DOI, pmid: '37011111', pmcid: 'PMC10111111', arxiv: '2301.04512' });
  // fields from the most trusted source for each: Crossref's title, authors, date and venue
  assert.equal(r.title, 'Conservative spectral schemes for the heat equation on irregular domains');
  assert.deepEqual(r.authors, ['Ana María Núñez-García', 'Li Wei', "Jean-Luc O'Brien"]);
  assert.equal(r.date, '2023-06-14');
  assert.equal(r.venue, 'Journal of Computational Testing');
  assert.equal(r.url, `https://doi.org/${P1_DOI}`);
  // found by all three, it outranks everything found by one
  assert.equal(out[0].id, r.id);
  assert.equal(r.score, Math.round((3 / (RRF_K + 1)) * 1e6) / 1e6);
  // no other record carries its ids
  assert.equal(out.filter((x) => x.ids.pmid === '37011111' || x.ids.arxiv === '2301.04512').length, 1);
});

test('four sources, one work: the S2 record (upper-case DOI) joins too', () => {
  const out = mergeAndRank('heat equation', [
    { source: 'preprint', records: arxiv() },
    { source: 'doi-registry', records: crossref() },
    { source: 'biomedical-index', records: pubmed() },
    { source: 'semantic-index', records: s2() },
  ], 20);
  const r = out.find((x) => x.ids.doi === P1_DOI)!;
  assert.deepEqual(r.sources, ['preprint', 'doi-registry', 'biomedical-index', 'semantic-index']);
  assert.equal(r.ids.s2, 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678');
});

test('same normalised title and year, no shared id: merged (arXiv entry and S2 entry of "Stochastic gradient methods…")', () => {
  const out = mergeAndRank('stochastic gradient', [
    { source: 'preprint', records: arxiv() },
    { source: 'semantic-index', records: s2() },
  ], 20);
  const sg = out.filter((r) => /stochastic gradient/i.test(r.title));
  assert.equal(sg.length, 1);
  assert.deepEqual(sg[0].sources, ['preprint', 'semantic-index']);
  assert.equal(sg[0].id, 'arxiv:2104.01234');
  assert.equal(sg[0].ids.s2, 'b2c3d4e5f60718293a4b5c6d7e8f901234567890');
});

const rec = (source: any, ids: any, title: string, date: string | null, authors: string[] = []) =>
  makeRecord(source, { ids, title, authors, date, venue: null, abstract: null })!;

test('equal titles are not merged when the years differ, when both DOIs differ, or when the title is short', () => {
  const lists = [
    { source: 'bio-preprint' as const, records: [rec('bio-preprint', { doi: '10.1101/2023.05.02.539100' }, 'Reaction-diffusion models of the heat shock response', '2023-05-02')] },
    { source: 'doi-registry' as const, records: [
      rec('doi-registry', { doi: '10.5555/svc.bio.2024.007' }, 'Reaction-diffusion models of the heat shock response', '2023-11-02'),
      rec('doi-registry', { doi: '10.5555/a' }, 'Editorial', '2020'),
    ] },
    { source: 'semantic-index' as const, records: [
      rec('semantic-index', { s2: 'c'.repeat(40) }, 'Reaction–diffusion models of the heat-shock response', '2024'),
      rec('semantic-index', { s2: 'd'.repeat(40) }, 'Editorial', '2020'),
    ] },
  ];
  const clusters = clusterHits(lists);
  // preprint and journal version (different DOIs) stay apart; the 2024 S2 record has another
  // year; the two "Editorial"s are too short a title to prove anything
  assert.equal(clusters.length, 5);
});

test('a record without a DOI joins the cluster whose title and year match, even across a DOI-bearing pair', () => {
  const lists = [
    { source: 'doi-registry' as const, records: [rec('doi-registry', { doi: '10.5555/x.1' }, 'A long enough title about heat kernels', '2019-01-01')] },
    { source: 'semantic-index' as const, records: [rec('semantic-index', { s2: 'e'.repeat(40) }, 'A Long Enough Title About Heat Kernels.', '2019')] },
    { source: 'open-catalogue' as const, records: [rec('open-catalogue', { openalex: 'W1', doi: '10.5555/X.1' }, 'Completely different wording', '2019')] },
  ];
  const clusters = clusterHits(lists);
  assert.equal(clusters.length, 1);
  const m = mergeRecords(clusters[0].map((h) => h.rec));
  assert.deepEqual(m.sources, ['open-catalogue', 'doi-registry', 'semantic-index']);
  assert.deepEqual(m.ids, { doi: '10.5555/x.1', openalex: 'W1', s2: 'e'.repeat(40) });
  assert.equal(m.date, '2019-01-01');
});

test('the merged date is the most precise one that agrees on the year with the most trusted source', () => {
  const m = mergeRecords([
    rec('doi-registry', { doi: '10.5555/d' }, 'Title of a paper with dates', '2021'),
    rec('preprint', { doi: '10.5555/d', arxiv: '2012.00001' }, 'Title of a paper with dates', '2020-12-01'),
    rec('semantic-index', { doi: '10.5555/d' }, 'Title of a paper with dates', '2021-03-04'),
  ]);
  assert.equal(m.date, '2021-03-04');
  assert.equal(m.year, 2021);
});

test('ranking: agreement beats a single source; ties fall to title coverage, then id', () => {
  const a = rec('doi-registry', { doi: '10.5555/a' }, 'Heat equation on graphs', '2020');
  const b = rec('doi-registry', { doi: '10.5555/b' }, 'Unrelated words entirely', '2020');
  const c = rec('semantic-index', { doi: '10.5555/b' }, 'Unrelated words entirely', '2020');
  const d = rec('semantic-index', { doi: '10.5555/d' }, 'Heat equation', '2020');
  const out = mergeAndRank('heat equation', [
    { source: 'doi-registry', records: [a, b] },
    { source: 'semantic-index', records: [d, c] },
  ], 10);
  assert.deepEqual(out.map((r) => r.id), ['doi:10.5555/b', 'doi:10.5555/a', 'doi:10.5555/d']);
  assert.equal(mergeAndRank('heat equation', [{ source: 'doi-registry', records: [a, b] }], 1).length, 1);
});

test('search records carry a snippet, not the full abstract', () => {
  const long = 'word '.repeat(200).trim();
  const r = makeRecord('doi-registry', { ids: { doi: '10.5555/s' }, title: 'A title', authors: [], date: '2020', venue: null, abstract: long })!;
  const [out] = mergeAndRank('title', [{ source: 'doi-registry', records: [r] }], 5);
  assert.ok(out.abstract!.length <= 301 && out.abstract!.endsWith('…'));
});
