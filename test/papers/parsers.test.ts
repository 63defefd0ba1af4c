// The small XML parser, canonical ids and the text/date helpers the adapters share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseXml, child, childElements, cleanText, textOf, XmlError } from '../../src/papers/xml.ts';
import { parseCanonicalId, normalizeDoi, normalizeArxiv, normalizeBiorxiv, canonicalIdOf, completeIds, MAX_ID_LENGTH } from '../../src/papers/ids.ts';
import { crossrefDate } from '../../src/papers/doi-registry.ts';
import { isoDate, pubmedDate, snippet, stripMarkup, titleKey, dateFromParts } from '../../src/papers/text.ts';
import { invertedIndexToText } from '../../src/papers/open-catalogue.ts';
import { splitBiorxivAuthors } from '../../src/papers/bio-preprint.ts';

test('xml: elements, attributes, entities, CDATA, comments, PIs and a DOCTYPE with an internal subset', () => {
  const doc = `<?xml version="1.0"?>
<!DOCTYPE a [ <!ENTITY boom "x"> <!ELEMENT a ANY> ]>
<!-- lead comment -->
<a xmlns:p="urn:p" k='v &amp; w'><p:b n="1">x &lt; y &#x41;&#66; &boom;</p:b><c/><![CDATA[<raw & text>]]><?pi ignored?></a>`;
  const root = parseXml(doc);
  assert.equal(root.name, 'a');
  assert.equal(root.attrs.k, 'v & w');
  const b = child(root, 'b')!;
  assert.equal(b.name, 'p:b');
  assert.equal(b.local, 'b');
  // a DTD-declared entity is never expanded
  assert.equal(textOf(b), 'x < y AB &boom;');
  assert.equal(childElements(root).length, 2);
  assert.equal(textOf(root), 'x < y AB &boom;<raw & text>');
});

test('xml: inline markup is flattened and white space collapsed by cleanText', () => {
  const root = parseXml('<t>Heat  <i>equation</i>\n on  a <sup>2</sup>-torus </t>');
  assert.equal(cleanText(root), 'Heat equation on a 2-torus');
});

test('xml: malformed documents are refused with XmlError', () => {
  const bad = [
    '<a><b></a>', // mismatched
    '<a><b>text', // truncated
    '<a>', // unclosed
    '', // empty
    'just text',
    '<a></a><b></b>', // two roots
    '<a x=1></a>', // unquoted attribute
    '<a><!-- never closed </a>',
    '<a><![CDATA[ open </a>',
  ];
  for (const s of bad) assert.throws(() => parseXml(s), XmlError, s);
});

test('ids: valid canonical ids normalise to one spelling', () => {
  const ok: [string, string][] = [
    ['doi:10.1371/journal.pone.0033693', 'doi:10.1371/journal.pone.0033693'],
    ['DOI:10.5555/SVC.HEAT.2023.001', 'doi:10.5555/svc.heat.2023.001'],
    ['doi:https://doi.org/10.1038/s42256-024-00832-8', 'doi:10.1038/s42256-024-00832-8'],
    ['doi:10.1016/0005-2795(76)90109-4', 'doi:10.1016/0005-2795(76)90109-4'],
    ['pmid:30939045', 'pmid:30939045'],
    ['arxiv:2301.04512v2', 'arxiv:2301.04512'],
    ['arxiv:cond-mat/0607501v2', 'arxiv:cond-mat/0607501'],
    ['arxiv:math.GT/0309136', 'arxiv:math.GT/0309136'],
    ['openalex:w4396723768', 'openalex:W4396723768'],
    ['s2:354DCDEBF3F8B5FEEED5C62090E0BC1F0C28DB06', 's2:354dcdebf3f8b5feeed5c62090e0bc1f0c28db06'],
    ['s2:corpusid:258059792', 's2:CorpusId:258059792'],
    ['biorxiv:2024.04.01.587366', 'biorxiv:2024.04.01.587366'],
    ['biorxiv:10.1101/097196v2', 'biorxiv:097196'],
    ['biorxiv:2020.02.25.20021568', 'biorxiv:2020.02.25.20021568'],
  ];
  for (const [raw, want] of ok) {
    const p = parseCanonicalId(raw);
    assert.ok(!('error' in p), `${raw}: ${'error' in p ? p.error : ''}`);
    assert.equal((p as any).canonical, want);
  }
});

test('ids: bad ids are refused with a reason (foo, doi:, pmid:abc, oversize, unknown scheme)', () => {
  const bad = ['foo', 'doi:', 'pmid:abc', 'pmid:0', 'doi:10.1/x', 'doi:11.1234/x', 'doi:10.1234/a b', 'arxiv:1234', 'openalex:A123',
    's2:xyz', 'biorxiv:12345', 'isbn:9780199830060', ':10.1/x', '', 'doi:10.1234/' + 'x'.repeat(MAX_ID_LENGTH)];
  for (const raw of bad) {
    const p = parseCanonicalId(raw);
    assert.ok('error' in p, `${raw} should be refused`);
  }
  assert.match((parseCanonicalId('foo') as any).error, /scheme:local/);
  assert.match((parseCanonicalId('doi:') as any).error, /empty/);
  assert.match((parseCanonicalId('pmid:abc') as any).error, /not a valid pmid/);
  assert.match((parseCanonicalId('x'.repeat(5000)) as any).error, /longer than/);
});

test('ids: DOI and arXiv normalisation across the forms sources print', () => {
  assert.equal(normalizeDoi('http://dx.doi.org/10.1103/PhysRevB.85.115117'), '10.1103/physrevb.85.115117');
  assert.equal(normalizeDoi('https://doi.org/10.1101%2F2024.04.01.587366'), '10.1101/2024.04.01.587366');
  assert.equal(normalizeDoi('not a doi'), null);
  assert.equal(normalizeArxiv('http://arxiv.org/abs/1111.2011v2'), '1111.2011');
  assert.equal(normalizeArxiv('https://arxiv.org/pdf/2304.05376.pdf'), '2304.05376');
  assert.equal(normalizeBiorxiv('10.1101/2024.04.01.587366'), '2024.04.01.587366');
  assert.equal(canonicalIdOf({ s2: 'ab'.repeat(20), pmid: '1', arxiv: '2301.00001' }), 'pmid:1');
  assert.deepEqual(completeIds({ doi: '10.48550/arxiv.2304.05376' }), { doi: '10.48550/arxiv.2304.05376', arxiv: '2304.05376' });
  assert.deepEqual(completeIds({ doi: '10.1101/097196' }), { doi: '10.1101/097196', biorxiv: '097196' });
});

test('dates: every shape the sources print, as precise as given and never invented', () => {
  assert.equal(isoDate('2011-11-08T18:48:36Z'), '2011-11-08');
  assert.equal(isoDate('2019/05/01 00:00'), '2019-05-01');
  assert.equal(isoDate('2023-02-30'), '2023-02'); // no such day: keep what is certain
  assert.equal(pubmedDate('1965 Aug'), '1965-08');
  assert.equal(pubmedDate('2001 Jun 15'), '2001-06-15');
  assert.equal(pubmedDate('1998 Dec-1999 Jan'), '1998-12');
  assert.equal(pubmedDate('2020 Spring'), '2020');
  assert.equal(pubmedDate('n.d.'), null);
  assert.equal(crossrefDate({ 'date-parts': [[2012, 3, 21]] }), '2012-03-21');
  assert.equal(crossrefDate({ 'date-parts': [[2012, 3]] }), '2012-03');
  assert.equal(crossrefDate({ 'date-parts': [[2019]] }), '2019');
  assert.equal(crossrefDate({ 'date-parts': [[null]] }), null);
  assert.equal(dateFromParts(2024, 2, 29), '2024-02-29');
  assert.equal(dateFromParts(2023, 2, 29), '2023-02');
});

test('text: JATS/HTML abstracts become plain text; snippets cut at a word', () => {
  assert.equal(
    stripMarkup('<jats:title>ABSTRACT</jats:title><jats:p>First &amp; <jats:italic>second</jats:italic>.</jats:p><jats:p>Third&nbsp;part.</jats:p>'),
    'First & second. Third part.',
  );
  assert.equal(stripMarkup('<p>Seen\\/used</p>'), 'Seen\\/used');
  const long = 'word '.repeat(100).trim();
  const s = snippet(long)!;
  assert.ok(s.length <= 301 && s.endsWith('…') && !s.includes('wor…'));
  assert.equal(snippet('short'), 'short');
  assert.equal(titleKey('Conservative Spectral Schemes — for the Héat Equation!'), 'conservative spectral schemes for the heat equation');
});

test('OpenAlex abstract_inverted_index is rebuilt in word order without the "Abstract" label', () => {
  assert.equal(invertedIndexToText({ Abstract: [0], heat: [1, 4], flows: [2], from: [3] }), 'heat flows from heat');
  assert.equal(invertedIndexToText(null), null);
});

test('bioRxiv author strings "Last, F.; Last, F. M." become display names', () => {
  assert.deepEqual(splitBiorxivAuthors('Mensah, K.; Larsen, I.; Okafor, C. N.'), ['K. Mensah', 'I. Larsen', 'C. N. Okafor']);
  assert.deepEqual(splitBiorxivAuthors('Consortium X; '), ['Consortium X']);
});
