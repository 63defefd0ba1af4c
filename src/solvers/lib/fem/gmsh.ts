// Gmsh mesh reader: the MSH 2.2 and MSH 4.1 ASCII formats (Geuzaine & Remacle, "Gmsh: a 3-D finite
// element mesh generator with built-in pre- and post-processing facilities", IJNME 79(11), 2009;
// the format sections of the Gmsh reference manual, §"MSH file format"). Reads $MeshFormat,
// $PhysicalNames, $Entities (4.1: the physical groups of each entity), $Nodes and $Elements.
// Element types kept: 1 (2-node line), 8 (3-node line), 2 (3-node triangle), 9 (6-node triangle),
// 4 (4-node tetrahedron), 11 (10-node tetrahedron), 15 (point). Any other type is a 400 naming the
// line and element; so are a node tag no $Nodes section defines, and binary files.
// Each element gets the physical group tags of its entity (4.1) or its first tag (2.2).
import { refuse } from '../../../core/errors.ts';

export interface GmshElement { tag: number; type: number; nodes: number[]; physical: number[]; entity: number; line: number }
export interface GmshMesh {
  version: '2.2' | '4.1';
  /** node tag → index; coordinates xyz by index */
  nodeIndex: Map<number, number>;
  nodeTags: number[];
  xyz: Float64Array;
  elements: GmshElement[];
  /** physical group name → {dim, tag}; and tag+dim → name */
  physicalNames: Map<string, { dim: number; tag: number }>;
}

export const ELEMENT_TYPES: Record<number, { name: string; dim: number; nodes: number; order: number }> = {
  1: { name: 'line', dim: 1, nodes: 2, order: 1 },
  8: { name: 'line3', dim: 1, nodes: 3, order: 2 },
  2: { name: 'triangle', dim: 2, nodes: 3, order: 1 },
  9: { name: 'triangle6', dim: 2, nodes: 6, order: 2 },
  4: { name: 'tetrahedron', dim: 3, nodes: 4, order: 1 },
  11: { name: 'tetrahedron10', dim: 3, nodes: 10, order: 2 },
  15: { name: 'point', dim: 0, nodes: 1, order: 1 },
};
const UNSUPPORTED: Record<number, string> = { 3: 'quadrangle', 5: 'hexahedron', 6: 'prism', 7: 'pyramid', 10: '9-node quadrangle', 12: '27-node hexahedron', 16: '8-node quadrangle', 17: '20-node hexahedron' };

const bad = (line: number, why: string) => refuse('INVALID_INPUT', `mesh: line ${line}: ${why}`, { line });

export function readGmsh(input: string | Uint8Array): GmshMesh {
  const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
  const lines = text.split(/\r?\n/);
  let i = 0;
  const next = (): string => { if (i >= lines.length) throw bad(lines.length, 'the file ends inside a section'); return lines[i++].trim(); };
  const nums = (s: string, ln: number): number[] => {
    const t = s.split(/\s+/).filter(Boolean).map(Number);
    if (t.some((v) => !Number.isFinite(v))) throw bad(ln, `'${s.slice(0, 60)}' is not a list of numbers`);
    return t;
  };
  let version: '2.2' | '4.1' | null = null;
  const nodeIndex = new Map<number, number>();
  const nodeTags: number[] = [];
  const coords: number[] = [];
  const elements: GmshElement[] = [];
  const physicalNames = new Map<string, { dim: number; tag: number }>();
  const entityPhysicals = new Map<string, number[]>(); // `${dim}:${tag}` → physical tags
  let sawNodes = false, sawElements = false;
  while (i < lines.length) {
    const ln = i + 1;
    const head = lines[i++].trim();
    if (!head) continue;
    if (!head.startsWith('$')) throw bad(ln, `expected a section ($MeshFormat, $Nodes, …), found '${head.slice(0, 40)}'`);
    const section = head.slice(1);
    const endTag = `$End${section}`;
    if (section === 'MeshFormat') {
      const l = i + 1;
      const [v, fileType] = next().split(/\s+/);
      if (fileType !== '0') throw bad(l, 'binary MSH files are not supported (save as ASCII)');
      if (v === '2.2' || v === '2' || v === '2.0' || v === '2.1') version = '2.2';
      else if (v === '4.1') version = '4.1';
      else throw bad(l, `MSH version ${v} is not supported (2.2 or 4.1 ASCII)`);
    } else if (section === 'PhysicalNames') {
      const n = Number(next());
      for (let k = 0; k < n; k++) {
        const l = i + 1;
        const m = /^(\d+)\s+(\d+)\s+"(.*)"\s*$/.exec(next());
        if (!m) throw bad(l, 'a physical name is `<dim> <tag> "<name>"`');
        physicalNames.set(m[3], { dim: Number(m[1]), tag: Number(m[2]) });
      }
    } else if (section === 'Entities' && version === '4.1') {
      const [np, nc, ns, nv] = nums(next(), i);
      const counts = [np, nc, ns, nv];
      for (let dim = 0; dim < 4; dim++) for (let k = 0; k < counts[dim]; k++) {
        const l = i + 1;
        const t = nums(next(), l);
        // point: tag x y z nPhys phys...; others: tag minx miny minz maxx maxy maxz nPhys phys... nBound bound...
        const at = dim === 0 ? 4 : 7;
        const np2 = t[at];
        entityPhysicals.set(`${dim}:${t[0]}`, t.slice(at + 1, at + 1 + np2).map(Math.abs));
      }
    } else if (section === 'Nodes') {
      sawNodes = true;
      if (version === '4.1') {
        const [blocks] = nums(next(), i);
        for (let bk = 0; bk < blocks; bk++) {
          const l = i + 1;
          const [, , parametric, count] = nums(next(), l);
          if (parametric) throw bad(l, 'parametric node coordinates are not supported');
          const tags: number[] = [];
          for (let k = 0; k < count; k++) tags.push(nums(next(), i)[0]);
          for (let k = 0; k < count; k++) {
            const l2 = i + 1;
            const c = nums(next(), l2);
            if (c.length < 3) throw bad(l2, 'a node needs x y z');
            nodeIndex.set(tags[k], nodeTags.length); nodeTags.push(tags[k]); coords.push(c[0], c[1], c[2]);
          }
        }
      } else {
        const n = Number(next());
        for (let k = 0; k < n; k++) {
          const l = i + 1;
          const c = nums(next(), l);
          if (c.length < 4) throw bad(l, 'a node is `<tag> <x> <y> <z>`');
          nodeIndex.set(c[0], nodeTags.length); nodeTags.push(c[0]); coords.push(c[1], c[2], c[3]);
        }
      }
    } else if (section === 'Elements') {
      sawElements = true;
      const take = (type: number, tag: number, nodes: number[], physical: number[], entity: number, l: number) => {
        const info = ELEMENT_TYPES[type];
        if (!info) throw bad(l, `element ${tag} has type ${type}${UNSUPPORTED[type] ? ` (${UNSUPPORTED[type]})` : ''}, which is not supported: lines, triangles and tetrahedra of order 1 or 2`);
        if (nodes.length !== info.nodes) throw bad(l, `element ${tag} (${info.name}) needs ${info.nodes} nodes, has ${nodes.length}`);
        elements.push({ tag, type, nodes, physical, entity, line: l });
      };
      if (version === '4.1') {
        const [blocks] = nums(next(), i);
        for (let bk = 0; bk < blocks; bk++) {
          const l = i + 1;
          const [dim, entity, type, count] = nums(next(), l);
          const phys = entityPhysicals.get(`${dim}:${entity}`) ?? [];
          for (let k = 0; k < count; k++) {
            const l2 = i + 1;
            const t = nums(next(), l2);
            take(type, t[0], t.slice(1), phys, entity, l2);
          }
        }
      } else {
        const n = Number(next());
        for (let k = 0; k < n; k++) {
          const l = i + 1;
          const t = nums(next(), l);
          const ntags = t[2];
          take(t[1], t[0], t.slice(3 + ntags), ntags > 0 ? [t[3]] : [], ntags > 1 ? t[4] : 0, l);
        }
      }
    }
    // skip to the end of the section (unknown sections are skipped whole)
    while (i < lines.length && lines[i].trim() !== endTag) i++;
    if (i >= lines.length) throw bad(ln, `section $${section} has no ${endTag}`);
    i++;
  }
  if (!version) throw bad(1, 'no $MeshFormat section: not a Gmsh MSH file');
  if (!sawNodes || !sawElements) throw bad(lines.length, 'the mesh needs $Nodes and $Elements');
  for (const e of elements) for (const t of e.nodes) if (!nodeIndex.has(t)) throw bad(e.line, `element ${e.tag} refers to node ${t}, which $Nodes does not define`);
  return { version, nodeIndex, nodeTags, xyz: Float64Array.from(coords), elements, physicalNames };
}
