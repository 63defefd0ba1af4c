// Lagrange finite element spaces P1 and P2 on a Gmsh simplex mesh (triangles or tetrahedra), with
// isoparametric geometry (Ciarlet, "The Finite Element Method for Elliptic Problems", 1978, §4.3;
// Ern & Guermond, "Theory and Practice of Finite Elements", 2004, ch. 1): the domain is the
// highest-dimensional element set of the mesh; its boundary facets (lines, or triangles in 3-D)
// carry the physical groups that `boundary` names. P2 edge nodes come from the mesh when it is
// quadratic (matched to edges by their position, so curved edges stay curved), else are created
// at edge midpoints. Local node order: vertices, then edges (0,1), (1,2), (2,0) [, (0,3), (1,3), (2,3)].
// Checks (400 naming the element): mixed or zero orientation ("inverted element"), dangling node
// references (in gmsh.ts), named physical groups that are absent.
import { refuse } from '../../../core/errors.ts';
import { ELEMENT_TYPES, type GmshMesh } from './gmsh.ts';

export const EDGES: Record<2 | 3, [number, number][]> = {
  2: [[0, 1], [1, 2], [2, 0]],
  3: [[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]],
};
const FACET_EDGES: Record<1 | 2, [number, number][]> = { 1: [[0, 1]], 2: [[0, 1], [1, 2], [2, 0]] };

export interface FeSpace {
  dim: 2 | 3;
  order: 1 | 2;
  /** coordinates of the dof nodes, 3 per node */
  coords: Float64Array;
  nodes: number;
  /** element → dof nodes (nodesPerElem each) */
  elems: Int32Array;
  nodesPerElem: number;
  nElems: number;
  elemTags: number[];
  /** boundary facets per physical group name */
  facets: Map<string, { nodes: Int32Array; perFacet: number }>;
  /** physical groups of the domain elements (for coefficient regions, reported) */
  physicalNames: string[];
  vertexCount: number;
}

export function buildSpace(mesh: GmshMesh, order: 1 | 2, needGroups: string[]): FeSpace {
  const domainDim = Math.max(...mesh.elements.map((e) => ELEMENT_TYPES[e.type].dim));
  if (domainDim < 2) throw refuse('INVALID_INPUT', 'mesh: no triangles or tetrahedra: the domain must be 2-D or 3-D');
  const dim = domainDim as 2 | 3;
  const domain = mesh.elements.filter((e) => ELEMENT_TYPES[e.type].dim === dim);
  const nv = dim + 1;
  const edgeList = EDGES[dim];
  // vertices used by domain elements get dof numbers first
  const dofOfNode = new Map<number, number>();
  const coords: number[] = [];
  const xyzOf = (tag: number) => { const k = mesh.nodeIndex.get(tag)!; return [mesh.xyz[3 * k], mesh.xyz[3 * k + 1], mesh.xyz[3 * k + 2]]; };
  const vertexDof = (tag: number) => {
    let d = dofOfNode.get(tag);
    if (d === undefined) { d = coords.length / 3; dofOfNode.set(tag, d); coords.push(...xyzOf(tag)); }
    return d;
  };
  for (const e of domain) for (let a = 0; a < nv; a++) vertexDof(e.nodes[a]);
  const vertexCount = coords.length / 3;
  const edgeDof = new Map<string, number>();
  const edgeKey = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  /** the mesh's own mid node of edge (a,b) among the high-order nodes of an element, by position */
  const midOf = (e: { nodes: number[] }, nVert: number, a: number, b: number): number[] => {
    const pa = xyzOf(e.nodes[a]), pb = xyzOf(e.nodes[b]);
    const mid = [0, 1, 2].map((k) => 0.5 * (pa[k] + pb[k]));
    if (e.nodes.length === nVert) return mid;
    let best = mid, bestD = Infinity;
    for (let k = nVert; k < e.nodes.length; k++) {
      const p = xyzOf(e.nodes[k]);
      const d = (p[0] - mid[0]) ** 2 + (p[1] - mid[1]) ** 2 + (p[2] - mid[2]) ** 2;
      if (d < bestD) { bestD = d; best = p; }
    }
    return best;
  };
  const getEdgeDof = (va: number, vb: number, pos: () => number[]) => {
    const key = edgeKey(va, vb);
    let d = edgeDof.get(key);
    if (d === undefined) { d = coords.length / 3; edgeDof.set(key, d); coords.push(...pos()); }
    return d;
  };
  const npe = order === 1 ? nv : nv + edgeList.length;
  const elems = new Int32Array(domain.length * npe);
  const elemTags: number[] = [];
  domain.forEach((e, k) => {
    elemTags.push(e.tag);
    for (let a = 0; a < nv; a++) elems[k * npe + a] = dofOfNode.get(e.nodes[a])!;
    if (order === 2) edgeList.forEach(([a, b], q) => {
      elems[k * npe + nv + q] = getEdgeDof(elems[k * npe + a], elems[k * npe + b], () => midOf(e, nv, a, b));
    });
  });
  // orientation: every element must have the sign of the first, and a nonzero measure
  let sign = 0;
  domain.forEach((e, k) => {
    const p = [0, 1, 2, 3].slice(0, nv).map((a) => coords.slice(3 * elems[k * npe + a], 3 * elems[k * npe + a] + 3));
    let vol: number;
    if (dim === 2) vol = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
    else {
      const u = [0, 1, 2].map((r) => p[1][r] - p[0][r]), v = [0, 1, 2].map((r) => p[2][r] - p[0][r]), w = [0, 1, 2].map((r) => p[3][r] - p[0][r]);
      vol = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
    }
    const s = Math.sign(vol);
    if (s === 0) throw refuse('INVALID_INPUT', `mesh: line ${e.line}: element ${e.tag} is degenerate (zero ${dim === 2 ? 'area' : 'volume'})`, { element: e.tag, line: e.line });
    if (sign === 0) sign = s;
    else if (s !== sign) throw refuse('INVALID_INPUT', `mesh: line ${e.line}: element ${e.tag} is inverted (its orientation is opposite to element ${domain[0].tag})`, { element: e.tag, line: e.line });
  });
  // boundary facets of the named groups
  const nameOf = new Map<string, string>();
  for (const [name, { dim: d, tag }] of mesh.physicalNames) nameOf.set(`${d}:${tag}`, name);
  const facets = new Map<string, { nodes: Int32Array; perFacet: number }>();
  const fdim = (dim - 1) as 1 | 2;
  const fv = fdim + 1;
  const fpe = order === 1 ? fv : fv + FACET_EDGES[fdim].length;
  for (const name of needGroups) {
    const g = mesh.physicalNames.get(name);
    if (!g) throw refuse('INVALID_INPUT', `boundary: the mesh has no physical group named '${name}' (it has ${[...mesh.physicalNames.keys()].map((n) => `'${n}'`).join(', ') || 'none'})`);
    if (g.dim !== fdim) throw refuse('INVALID_INPUT', `boundary: physical group '${name}' has dimension ${g.dim}; boundary conditions go on ${fdim === 1 ? 'curves (dimension 1)' : 'surfaces (dimension 2)'}`);
    const list: number[] = [];
    for (const e of mesh.elements) {
      if (ELEMENT_TYPES[e.type].dim !== fdim || !e.physical.includes(g.tag)) continue;
      const vs = e.nodes.slice(0, fv).map((t) => dofOfNode.get(t));
      if (vs.some((v) => v === undefined)) throw refuse('INVALID_INPUT', `mesh: line ${e.line}: boundary element ${e.tag} of '${name}' has a node that no ${dim === 2 ? 'triangle' : 'tetrahedron'} uses`, { element: e.tag, line: e.line });
      list.push(...(vs as number[]));
      if (order === 2) for (const [a, b] of FACET_EDGES[fdim]) {
        const d = edgeDof.get(edgeKey(vs[a]!, vs[b]!));
        if (d === undefined) throw refuse('INVALID_INPUT', `mesh: line ${e.line}: boundary element ${e.tag} of '${name}' is not a face of the domain`, { element: e.tag, line: e.line });
        list.push(d);
      }
    }
    if (!list.length) throw refuse('INVALID_INPUT', `boundary: physical group '${name}' has no elements in the mesh`);
    facets.set(name, { nodes: Int32Array.from(list), perFacet: fpe });
  }
  const physicalNames = [...new Set(domain.flatMap((e) => e.physical.map((t) => nameOf.get(`${dim}:${t}`)).filter((x): x is string => !!x)))];
  return { dim, order, coords: Float64Array.from(coords), nodes: coords.length / 3, elems, nodesPerElem: npe, nElems: domain.length, elemTags, facets, physicalNames, vertexCount };
}

/** Basis values and reference derivatives at barycentric point λ (d+1 entries) for dim d, order p. */
export function basisAt(dim: number, order: 1 | 2, lam: number[]): { phi: Float64Array; dphi: Float64Array } {
  const nv = dim + 1;
  const edges = dim === 1 ? [[0, 1]] : EDGES[dim as 2 | 3];
  const nb = order === 1 ? nv : nv + edges.length;
  const phi = new Float64Array(nb);
  const dl = new Float64Array(nb * nv); // dφ_a/dλ_j
  for (let a = 0; a < nv; a++) {
    if (order === 1) { phi[a] = lam[a]; dl[a * nv + a] = 1; }
    else { phi[a] = lam[a] * (2 * lam[a] - 1); dl[a * nv + a] = 4 * lam[a] - 1; }
  }
  if (order === 2) edges.forEach(([i, j], q) => {
    const a = nv + q;
    phi[a] = 4 * lam[i] * lam[j];
    dl[a * nv + i] = 4 * lam[j];
    dl[a * nv + j] = 4 * lam[i];
  });
  // reference coordinates ξ_c = λ_{c+1}, λ_0 = 1 − Σξ
  const dphi = new Float64Array(nb * dim);
  for (let a = 0; a < nb; a++) for (let c = 0; c < dim; c++) dphi[a * dim + c] = dl[a * nv + c + 1] - dl[a * nv];
  return { phi, dphi };
}

/** Barycentric coordinates of the local nodes (vertices, then edge midpoints). */
export function localNodes(dim: number, order: 1 | 2): number[][] {
  const nv = dim + 1;
  const out: number[][] = [];
  for (let a = 0; a < nv; a++) out.push(Array.from({ length: nv }, (_, j) => (j === a ? 1 : 0)));
  if (order === 2) for (const [i, j] of (dim === 1 ? [[0, 1]] : EDGES[dim as 2 | 3])) out.push(Array.from({ length: nv }, (_, k) => (k === i || k === j ? 0.5 : 0)));
  return out;
}
