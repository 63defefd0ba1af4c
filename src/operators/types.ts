// Shapes of the operator catalog (data in src/operators/domains.json and catalog/<slug>.json).

/** Literature sources (neutral names of the spec) that serve a domain. */
export type PaperSource = 'preprint' | 'open-catalogue' | 'doi-registry' | 'biomedical-index' | 'semantic-index' | 'bio-preprint';

export interface DomainDef {
  name: string;
  slug: string;
  /** short code; svc_compute takes it as well as the name and slug; it is every operator's `prefix` */
  code: string;
  /** other labels that select this domain (the spec's "HULYAS-type Master Field (N-body)") */
  aliases?: string[];
  description: string;
  vocabulary: string[];
  defaultOperator: string;
  sources: PaperSource[];
}

export interface OperatorDef {
  id: string;
  name: string;
  /** the domain's name */
  domain: string;
  /** what svc_compute takes to select the domain: the domain's code */
  prefix: string;
  tier: 1 | 2 | 3;
  /** a mathjs expression over the input keys (mathjs physical constants such as speedOfLight allowed) */
  equation: string;
  /** input key → unit string mathjs understands ("1" for dimensionless) */
  inputs: Record<string, string>;
  output: { unit: string };
  description: string;
  source: string;
  /** sample inputs, numbers in the declared units, for which the formula is finite */
  example: Record<string, number>;
}
