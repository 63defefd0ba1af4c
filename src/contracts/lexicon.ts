// Word lists for the plain-English generator (generate.ts): workflow verbs with their past
// participles (the participle names the state a step reaches: "ship" → "shipped"), the nouns
// that name those steps ("delivery" → "deliver"), negative verbs (steps that end a workflow
// unsuccessfully), and the word classes of conditions (conditions.ts): number words, time units,
// roles (parties), comparison phrases, currency words. Data and small lookups only.

/** base → past participle, for verbs whose participle is not base + "ed" by the usual rules. */
const IRREGULAR: Record<string, string> = {
  pay: 'paid', send: 'sent', build: 'built', make: 'made', run: 'run', begin: 'begun', write: 'written',
  sign: 'signed', give: 'given', take: 'taken', hold: 'held', sell: 'sold', buy: 'bought', choose: 'chosen',
  set: 'set', put: 'put', shut: 'shut', cut: 'cut', freeze: 'frozen', grow: 'grown', draw: 'drawn',
  find: 'found', get: 'got', leave: 'left', lose: 'lost', meet: 'met', read: 'read', seek: 'sought',
  teach: 'taught', tell: 'told', think: 'thought', win: 'won', fly: 'flown', see: 'seen', do: 'done',
  go: 'gone', bring: 'brought', keep: 'kept', lead: 'led', lend: 'lent', spend: 'spent', split: 'split',
  undergo: 'undergone', rewrite: 'rewritten', withdraw: 'withdrawn', overturn: 'overturned', shoot: 'shot',
  upload: 'uploaded', download: 'downloaded', deposit: 'deposited', audit: 'audited', edit: 'edited',
  credit: 'credited', exhibit: 'exhibited', visit: 'visited', limit: 'limited', inherit: 'inherited',
  offer: 'offered', deliver: 'delivered', enter: 'entered', order: 'ordered', register: 'registered',
  monitor: 'monitored', filter: 'filtered', render: 'rendered', open: 'opened', listen: 'listened',
  happen: 'happened', answer: 'answered', cover: 'covered', consider: 'considered', recover: 'recovered',
  discover: 'discovered', gather: 'gathered', trigger: 'triggered', tender: 'tendered', deploy: 'deployed',
  enrol: 'enrolled', label: 'labelled', cancel: 'cancelled', travel: 'travelled', model: 'modelled',
  signal: 'signalled', total: 'totalled', fuel: 'fuelled', refuel: 'refuelled', channel: 'channelled',
  level: 'levelled', dispatch: 'dispatched', publish: 'published', finish: 'finished', establish: 'established',
  launch: 'launched', approach: 'approached', match: 'matched', attach: 'attached', fetch: 'fetched',
  process: 'processed', access: 'accessed', assess: 'assessed', address: 'addressed', witness: 'witnessed',
  fix: 'fixed', mix: 'mixed', tax: 'taxed', index: 'indexed', relax: 'relaxed', vet: 'vetted',
};

/** Workflow verbs (base forms). */
const VERBS = `
submit review approve reject sign countersign pay ship deliver receive inspect test verify validate confirm
release deploy build design draft publish archive close open create request apply register enrol enroll
schedule book assign dispatch install configure train onboard interview hire offer accept decline cancel
refund invoice bill charge collect deposit fund escrow audit assess evaluate analyse analyze measure calibrate
sample label store freeze thaw transport transfer package pack pick load unload clear certify license licence
renew expire notify alert escalate triage investigate diagnose repair fix patch maintain service replace
upgrade migrate restore rollback monitor report file settle reconcile plan prepare execute run launch start
finish complete stop halt pause resume terminate retire decommission dispose destroy recall return exchange
quote negotiate award order purchase procure authorise authorize consent randomise randomize dose screen
vaccinate admit discharge treat prescribe dispense grade mark defend examine graduate provision activate
suspend reinstate recover rotate revoke issue mint log document translate edit proofread record shoot produce
broadcast moderate appeal uphold overturn vote ratify amend propose nominate shortlist select vet check
underwrite appraise value survey permit construct pour cure demolish excavate harvest plant grow weigh grind
ferment bottle brew cook serve clean sanitise sanitize sterilise sterilize autoclave refuel land fly dock park
print scan upload download sync index score rank match merge commit benchmark simulate replicate preregister
observe compute seal anchor notarise notarize witness stamp stage approve reserve allocate lock unlock
acknowledge accept enlist subscribe unsubscribe convert invite shortlist finalise finalize sign-off handover
hand deliver dismiss void withdraw fail pass deny abandon discard scrap reapply resubmit rework retest
rerun reinspect renegotiate reschedule contact call email message remind chase follow document photograph
transcribe encode decode encrypt decrypt backup restore quarantine isolate contain eradicate mitigate resolve
reopen close approve grant announce send post make take give push reboot restart water chase pledge donate raise
lodge email text visit flash update refresh wipe erase mount attach detach compile bundle tag lint rebase fork
sign notify hand convert sell buy ask answer invite remind wait expire verify enable disable lock sweep sort
deduct withhold debit inform advise warn flag forfeit waive sanction fine penalise penalize
write read draw find meet teach tell think win see bring keep lend spend undergo choose hold set put shut
sequence extract purify centrifuge incubate culture stain image count sort route
deliver distribute sell buy rent lease let move relocate evict vacate occupy commission decommission
trigger reorder promote alert
`;

/** Verbs that end a workflow unsuccessfully when they are the action of a condition. */
export const NEGATIVE_VERBS = new Set([
  'reject', 'decline', 'cancel', 'refund', 'deny', 'abort', 'terminate', 'void', 'revoke', 'withdraw', 'fail',
  'dismiss', 'discard', 'destroy', 'scrap', 'abandon', 'halt', 'stop', 'quarantine', 'recall', 'evict', 'forfeit', 'suspend',
]);

/** noun → verb (the noun names the step the verb performs). */
export const NOUN_VERB: Record<string, string> = Object.assign(Object.create(null), {
  review: 'review', approval: 'approve', payment: 'pay', delivery: 'deliver', shipment: 'ship', shipping: 'ship',
  inspection: 'inspect', signature: 'sign', signing: 'sign', submission: 'submit', confirmation: 'confirm',
  verification: 'verify', validation: 'validate', installation: 'install', registration: 'register',
  enrolment: 'enrol', enrollment: 'enroll', assessment: 'assess', evaluation: 'evaluate', analysis: 'analyse',
  measurement: 'measure', calibration: 'calibrate', transfer: 'transfer', release: 'release', deployment: 'deploy',
  publication: 'publish', closure: 'close', cancellation: 'cancel', refund: 'refund', renewal: 'renew',
  expiry: 'expire', expiration: 'expire', notification: 'notify', escalation: 'escalate', investigation: 'investigate',
  diagnosis: 'diagnose', repair: 'repair', maintenance: 'maintain', replacement: 'replace', upgrade: 'upgrade',
  migration: 'migrate', backup: 'backup', restoration: 'restore', settlement: 'settle', reconciliation: 'reconcile',
  execution: 'execute', completion: 'complete', termination: 'terminate', disposal: 'dispose', recall: 'recall',
  negotiation: 'negotiate', award: 'award', purchase: 'purchase', procurement: 'procure', authorisation: 'authorise',
  authorization: 'authorize', consent: 'consent', screening: 'screen', vaccination: 'vaccinate', admission: 'admit',
  treatment: 'treat', prescription: 'prescribe', examination: 'examine', exam: 'examine', graduation: 'graduate',
  activation: 'activate', suspension: 'suspend', recovery: 'recover', rotation: 'rotate', revocation: 'revoke',
  issuance: 'issue', translation: 'translate', moderation: 'moderate', appeal: 'appeal', vote: 'vote',
  ratification: 'ratify', amendment: 'amend', proposal: 'propose', nomination: 'nominate', selection: 'select',
  underwriting: 'underwrite', appraisal: 'appraise', construction: 'construct', harvest: 'harvest', audit: 'audit',
  invoice: 'invoice', deposit: 'deposit', funding: 'fund', training: 'train', onboarding: 'onboard',
  interview: 'interview', acceptance: 'accept', rejection: 'reject', testing: 'test', design: 'design',
  launch: 'launch', sampling: 'sample', storage: 'store', transport: 'transport', transportation: 'transport',
  packaging: 'package', clearance: 'clear', certification: 'certify', licensing: 'license', dispatch: 'dispatch',
  assignment: 'assign', scheduling: 'schedule', booking: 'book', planning: 'plan', preparation: 'prepare',
  handover: 'handover', acknowledgement: 'acknowledge', acknowledgment: 'acknowledge', allocation: 'allocate',
  reservation: 'reserve', conversion: 'convert', subscription: 'subscribe', invitation: 'invite', dismissal: 'dismiss',
  withdrawal: 'withdraw', denial: 'deny', resolution: 'resolve', mitigation: 'mitigate', containment: 'contain',
  eradication: 'eradicate', isolation: 'isolate', sequencing: 'sequence', extraction: 'extract', purification: 'purify',
  incubation: 'incubate', imaging: 'image', distribution: 'distribute', relocation: 'relocate', occupation: 'occupy',
  commissioning: 'commission', decommissioning: 'decommission', quote: 'quote', quotation: 'quote', order: 'order',
  checkout: 'check', check: 'check', handoff: 'handover', kickoff: 'start', startup: 'start', shutdown: 'stop',
  signoff: 'sign-off', rollout: 'deploy', rollback: 'rollback', arrival: 'arrive', departure: 'depart',
  receipt: 'receive', collection: 'collect', reimbursement: 'reimburse', disbursement: 'disburse',
});

/** Verbs that appear only as nouns' targets above or in common phrasing. */
const EXTRA_VERBS = 'arrive depart reimburse disburse sequence extract purify image distribute resolve mitigate';


export const NUMBER_WORDS: Record<string, number> = Object.assign(Object.create(null), {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fourteen: 14, fifteen: 15, twenty: 20, thirty: 30, sixty: 60, ninety: 90,
});

export const UNIT_SECONDS: Record<string, number> = Object.assign(Object.create(null), {
  second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400, week: 604800, month: 2592000, year: 31536000,
  'business day': 86400, 'working day': 86400,
});

function regularParticiple(v: string): string {
  if (v.endsWith('e')) return v + 'd';
  if (/[^aeiou]y$/.test(v)) return v.slice(0, -1) + 'ied';
  // one-syllable consonant-vowel-consonant verbs (and stressed final syllables below) double the consonant
  if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(v)) return v + v.slice(-1) + 'ed';
  if (/(mit|fer|pel|cur|gin)$/.test(v)) return v + v.slice(-1) + 'ed';
  return v + 'ed';
}

export const PARTICIPLE = new Map<string, string>();
export const BASE_OF = new Map<string, string>();
for (const v of `${VERBS} ${EXTRA_VERBS}`.split(/\s+/).filter(Boolean)) {
  const p = IRREGULAR[v] ?? regularParticiple(v);
  PARTICIPLE.set(v, p);
  if (!BASE_OF.has(p)) BASE_OF.set(p, v);
}

/** The base verb a word is a form of ("ships" → "ship", "approved" → "approve", "paying" →
 * "pay"), or undefined. */
export function verbBase(word: string): string | undefined {
  const w = word.toLowerCase();
  if (PARTICIPLE.has(w)) return w;
  const fromParticiple = BASE_OF.get(w);
  if (fromParticiple) return fromParticiple;
  const tries: string[] = [];
  if (w.endsWith('ies')) tries.push(w.slice(0, -3) + 'y');
  if (w.endsWith('es')) tries.push(w.slice(0, -2));
  if (w.endsWith('s')) tries.push(w.slice(0, -1));
  if (w.endsWith('ing')) {
    const stem = w.slice(0, -3);
    tries.push(stem, stem + 'e');
    if (/(.)\1$/.test(stem)) tries.push(stem.slice(0, -1));
  }
  if (w.endsWith('ed')) {
    const stem = w.slice(0, -2);
    tries.push(stem, stem + 'e', w.slice(0, -1));
    if (/(.)\1$/.test(stem)) tries.push(stem.slice(0, -1));
    if (w.endsWith('ied')) tries.push(w.slice(0, -3) + 'y');
  }
  return tries.find((t) => PARTICIPLE.has(t));
}

// ------------------------------------------------------------------------------------------
// Word classes of conditions (conditions.ts): numbers, roles, comparisons, negations.

Object.assign(NUMBER_WORDS, {
  zero: 0, thirteen: 13, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, forty: 40, fifty: 50,
  seventy: 70, eighty: 80, hundred: 100, 'a hundred': 100, 'one hundred': 100, thousand: 1000, 'a thousand': 1000,
  'a dozen': 12, dozen: 12, 'a couple of': 2, couple: 2, 'forty-five': 45, 'twenty-four': 24, 'forty-eight': 48,
});

/** Alternation of the number words, longest first ("a hundred" before "a"). */
export const NUMBER_WORD_ALT = Object.keys(NUMBER_WORDS).sort((a, b) => b.length - a.length).map((w) => w.replace(/[-\s]/g, '[-\\s]')).join('|');

/** Time units as written (singular or plural, abbreviations). */
export const UNIT_ALT = '(?:business|working) days?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?';

/** Seconds in one unit as written ("days", "business day", "hrs"). */
export function unitSeconds(unit: string): number {
  const u = unit.toLowerCase().replace(/s$/, '');
  return UNIT_SECONDS[u] ?? UNIT_SECONDS[u.replace(/^(business|working) /, '')] ?? 86400;
}

/** A number written in digits or words ("7", "1,500", "seven", "a hundred"); NaN otherwise. */
export function numberValue(text: string): number {
  const t = text.toLowerCase().trim().replace(/\s+/g, ' ');
  if (/^-?\d[\d,]*(?:\.\d+)?$/.test(t)) return Number(t.replace(/,/g, ''));
  const w = NUMBER_WORDS[t] ?? NUMBER_WORDS[t.replace(/-/g, ' ')];
  return w ?? NaN;
}

/** Parties a clause names ("the buyer confirms"): a role keeps its own facts apart from another
 * role's ("the buyer approves" and "the seller approves" are two variables), and "only the buyer
 * may …" becomes a guard on who acts. Singular forms; plurals are matched through the stemmer. */
export const ROLES = new Set(`
buyer seller purchaser vendor supplier customer client contractor subcontractor landlord tenant lessor lessee
licensor licensee lender borrower debtor creditor employer employee worker freelancer consultant owner agent broker
insurer insured policyholder claimant adjuster inspector auditor reviewer approver manager supervisor director
editor author publisher carrier shipper courier consignee consignor recipient sender beneficiary trustee guarantor
investor founder shareholder partner party sponsor donor patient doctor physician nurse student teacher tutor
applicant candidate recruiter subscriber provider user administrator admin developer tester maintainer arbitrator
arbiter mediator notary committee board regulator bank merchant seller payer payee homeowner builder architect
engineer surveyor auctioneer bidder winner organiser organizer attendee participant member volunteer researcher
principal investigator funder grantee university hospital lab laboratory pharmacy insurer operator driver pilot
passenger guest host traveller traveler`.split(/\s+/).filter(Boolean));

/** Comparison phrases → operator, longest phrases first. A "not"/"no" just before a phrase
 * inverts it ("no more than" → <=, "does not exceed" → <=, "no fewer than" → >=). */
export const COMPARISONS: [string, '>' | '>=' | '<' | '<=' | '=='][] = ([
  ['greater than or equal to', '>='], ['more than or equal to', '>='], ['less than or equal to', '<='],
  ['at least', '>='], ['a minimum of', '>='], ['minimum of', '>='], ['not below', '>='],
  ['at most', '<='], ['a maximum of', '<='], ['maximum of', '<='], ['up to', '<='], ['not above', '<='],
  ['more than', '>'], ['greater than', '>'], ['higher than', '>'], ['larger than', '>'], ['bigger than', '>'],
  ['in excess of', '>'], ['exceeds', '>'], ['exceeded', '>'], ['exceeding', '>'], ['exceed', '>'], ['over', '>'], ['above', '>'],
  ['less than', '<'], ['fewer than', '<'], ['lower than', '<'], ['smaller than', '<'], ['under', '<'], ['below', '<'], ['beneath', '<'],
  ['equal to', '=='], ['equals', '=='], ['exactly', '=='],
] as [string, '>' | '>=' | '<' | '<=' | '=='][]).sort((a, b) => b[0].length - a[0].length);

/** Currency words that may follow an amount and do not name the variable. */
export const CURRENCY_WORDS = new Set(['dollars', 'dollar', 'euros', 'euro', 'pounds', 'pound', 'usd', 'eur', 'gbp', 'chf', 'yen', 'francs', 'cents']);
