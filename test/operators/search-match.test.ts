// svc_find_operator (full text over id, name, equation, description) and svc_domain_match
// (deterministic term overlap).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findOperators } from '../../src/operators/search.ts';
import { identifierTokens as tokenize } from '../../src/core/text.ts';
import { matchDomains, textForId } from '../../src/operators/match.ts';

test('search finds operators by name, id, equation and description words', () => {
  assert.equal(findOperators('kinetic energy')[0].id, 'KINETIC_ENERGY');
  assert.equal(findOperators('KO42')[0].id, 'KO42');
  assert.equal(findOperators('black scholes')[0].id, 'BLACK_SCHOLES');
  assert.equal(findOperators('de broglie')[0].id, 'DE_BROGLIE_WAVELENGTH');
  assert.ok(findOperators('speedOfLight').length > 3, 'equation constants are searchable');
  assert.ok(findOperators('michaelis').some((o) => o.id === 'MICHAELIS_MENTEN'));
  assert.ok(findOperators('arrhenius').some((o) => o.id === 'ARRHENIUS_RATE'));
  assert.ok(findOperators('kinetc enrgy').some((o) => o.id === 'KINETIC_ENERGY'), 'typo tolerance');
  assert.deepEqual(findOperators('qqqqzzzz'), []);
  const hit = findOperators('ohm', 1)[0];
  for (const k of ['id', 'domain', 'prefix', 'tier', 'equation', 'inputKeys']) assert.ok(k in hit, k);
});

test('limit: default 12, at most 40', () => {
  assert.equal(findOperators('energy').length, 12);
  assert.equal(findOperators('energy', 40).length, 40);
  assert.equal(findOperators('energy', 400).length, 40);
  assert.equal(findOperators('energy', 3).length, 3);
});

test('tokenize splits snake case, camelCase and operators', () => {
  assert.deepEqual(tokenize('KINETIC_ENERGY m*v^2/2 speedOfLight LandGEM'), ['kinetic', 'energy', 'm', 'v', '2', '2', 'speedoflight', 'speed', 'of', 'light', 'landgem', 'land', 'gem']);
});

test('domain match: vocabulary terms fire, phrases weigh more, order is deterministic', () => {
  const a = matchDomains('resonance of an organ pipe and its sound pressure level');
  assert.equal(a[0].name, 'Acoustics');
  assert.ok(a[0].terms.includes('organ pipe') && a[0].terms.includes('sound pressure level'));
  assert.deepEqual(matchDomains('resonance of an organ pipe and its sound pressure level'), a);
  assert.equal(matchDomains('pricing a call option with black-scholes')[0].name, 'Quantitative Finance');
  assert.equal(matchDomains('predator prey cycles (lotka-volterra)')[0].name, 'Population Ecology');
  assert.equal(matchDomains('tumour invasion front')[0].name, 'Growth-Front Dynamics');
  assert.deepEqual(matchDomains('xyzzy plugh'), []);
  assert.ok(matchDomains('energy heat wave quantum', 12).length <= 12);
  assert.equal(matchDomains('energy heat wave quantum', 2).length, 2);
  // a text touching many domains: 5 by default, up to 12 when asked
  const broad = 'energy heat wave quantum stress fluid population option circuit reaction diffusion temperature pressure frequency';
  assert.equal(matchDomains(broad).length, 5);
  assert.equal(matchDomains(broad, 12).length, 12);
  assert.equal(matchDomains(broad, 50).length, 12);
  assert.deepEqual(matchDomains(broad, 12).slice(0, 5), matchDomains(broad));
});

test('domain match by id: an operator id or a domain code stands for its text', () => {
  assert.equal(textForId('WM1').resolved, 'operator:WM1');
  assert.equal(matchDomains(textForId('WM1').text)[0].name, 'Wave Mechanics');
  assert.equal(textForId('QF').resolved, 'domain:quantitative-finance');
  assert.equal(textForId('doi:10.1000/xyz').resolved, null);
});
