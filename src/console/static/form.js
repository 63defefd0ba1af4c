// A form generated from an operation's JSON Schema (the schema /openapi.json publishes, which
// the node derives from the same zod declaration it validates with). `fieldsOf` and
// `collectBody` are pure (unit-tested in Node); `renderFields` and `readRaw` touch the DOM.
// The node remains the judge: bounds shown here are hints, its 400 names the field and bound.

/** Request fields every solver accepts (engine commonFields); shown apart, under "Common fields". */
export const COMMON_FIELDS = ['folder', 'sample', 'query', 'domain', 'operators', 'inputs', 'consts'];

function unwrap(p) {
  // zod emits optional/nullable unions as anyOf; a single non-null branch is that branch
  const alts = p.anyOf ?? p.oneOf;
  if (Array.isArray(alts)) {
    const nonNull = alts.filter((a) => a && a.type !== 'null');
    if (nonNull.length === 1) return { ...nonNull[0], description: p.description ?? nonNull[0].description, default: p.default ?? nonNull[0].default };
  }
  return p;
}

/** Field descriptions for a JSON Schema object: [{name, kind, required, common, ...}]. */
export function fieldsOf(schema) {
  const props = schema?.properties ?? {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const out = [];
  for (const [name, raw] of Object.entries(props)) {
    const p = unwrap(raw ?? {});
    const f = {
      name,
      required: required.has(name) && p.default === undefined,
      common: COMMON_FIELDS.includes(name) && !required.has(name),
      description: p.description ?? '',
      default: p.default,
    };
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
    if (Array.isArray(p.enum)) {
      Object.assign(f, { kind: 'select', options: p.enum });
    } else if (p.const !== undefined) {
      Object.assign(f, { kind: 'select', options: [p.const] });
    } else if (type === 'boolean') {
      f.kind = 'checkbox';
    } else if (type === 'integer' || type === 'number') {
      Object.assign(f, {
        kind: 'number',
        integer: type === 'integer',
        min: p.minimum ?? p.exclusiveMinimum,
        max: p.maximum ?? p.exclusiveMaximum,
        exclusiveMin: p.minimum === undefined && p.exclusiveMinimum !== undefined,
        exclusiveMax: p.maximum === undefined && p.exclusiveMaximum !== undefined,
      });
    } else if (type === 'string') {
      Object.assign(f, { kind: p.maxLength !== undefined && p.maxLength > 200 ? 'textarea' : 'text', maxLength: p.maxLength });
    } else if (type === 'array' && p.items && ['number', 'integer', 'string'].includes(unwrap(p.items).type)) {
      Object.assign(f, { kind: 'list', itemType: unwrap(p.items).type, minItems: p.minItems, maxItems: p.maxItems });
    } else {
      f.kind = 'json';
    }
    out.push(f);
  }
  return out;
}

/** Text a field starts with (its default), as the user would type it. */
export function initialText(f) {
  if (f.default === undefined) return '';
  if (f.kind === 'list' && Array.isArray(f.default)) return f.default.join(', ');
  if (f.kind === 'json') return JSON.stringify(f.default);
  return String(f.default);
}

/** A one-line hint: type, bounds, default. */
export function hintOf(f) {
  const parts = [];
  if (f.kind === 'number') {
    parts.push(f.integer ? 'integer' : 'number');
    const lo = f.min !== undefined ? `${f.exclusiveMin ? '>' : '≥'} ${f.min}` : '';
    const hi = f.max !== undefined ? `${f.exclusiveMax ? '<' : '≤'} ${f.max}` : '';
    if (lo || hi) parts.push([lo, hi].filter(Boolean).join(', '));
  } else if (f.kind === 'list') {
    parts.push(`comma-separated ${f.itemType === 'string' ? 'values' : 'numbers'}`);
  } else if (f.kind === 'json') {
    parts.push('JSON');
  } else if (f.kind === 'select') {
    parts.push(`one of ${f.options.join(', ')}`);
  }
  if (f.default !== undefined) parts.push(`default ${typeof f.default === 'object' ? JSON.stringify(f.default) : f.default}`);
  if (f.required) parts.push('required');
  return parts.join(' · ');
}

/** Builds the request body from the raw inputs {name: string | boolean}. Empty fields are left
 * out (the node applies its defaults). Returns {body, errors: [{name, message}]}. */
export function collectBody(fields, raw) {
  const body = {};
  const errors = [];
  for (const f of fields) {
    const v = raw[f.name];
    if (f.kind === 'checkbox') {
      const on = v === true || v === 'true';
      if (on !== (f.default ?? false) || f.required) body[f.name] = on;
      continue;
    }
    const text = typeof v === 'string' ? v.trim() : '';
    if (text === '') {
      if (f.required) errors.push({ name: f.name, message: 'required' });
      continue;
    }
    if (f.kind === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n)) { errors.push({ name: f.name, message: 'not a number' }); continue; }
      if (f.integer && !Number.isInteger(n)) { errors.push({ name: f.name, message: 'must be an integer' }); continue; }
      body[f.name] = n;
    } else if (f.kind === 'list') {
      const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
      if (f.itemType === 'string') body[f.name] = items;
      else {
        const nums = items.map(Number);
        if (nums.some((n) => !Number.isFinite(n))) { errors.push({ name: f.name, message: 'a list of numbers, separated by commas' }); continue; }
        body[f.name] = nums;
      }
    } else if (f.kind === 'json') {
      try { body[f.name] = JSON.parse(text); } catch { errors.push({ name: f.name, message: 'not valid JSON' }); }
    } else if (f.kind === 'select') {
      const opt = f.options.find((o) => String(o) === text);
      body[f.name] = opt === undefined ? text : opt;
    } else {
      body[f.name] = text;
    }
  }
  return { body, errors };
}

// ── DOM ──────────────────────────────────────────────────────────────────────────────────────

export function fieldId(prefix, name) {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Renders fields into `container`; each gets a label, an input and its hint. */
export function renderFields(container, fields, prefix, h) {
  for (const f of fields) {
    const id = fieldId(prefix, f.name);
    const hintId = `${id}-hint`;
    const common = { id, name: f.name, 'aria-describedby': hintId, 'data-field': f.name, required: f.required };
    let input;
    if (f.kind === 'select') {
      input = h('select', common, ...(f.required || f.default !== undefined ? [] : [h('option', { value: '' }, '—')]),
        ...f.options.map((o) => h('option', { value: String(o), selected: String(o) === String(f.default ?? '') }, String(o))));
    } else if (f.kind === 'checkbox') {
      input = h('input', { ...common, type: 'checkbox' });
      input.checked = f.default === true;
    } else if (f.kind === 'number') {
      input = h('input', { ...common, type: 'text', inputmode: f.integer ? 'numeric' : 'decimal', autocomplete: 'off', spellcheck: 'false' });
      input.value = initialText(f);
    } else if (f.kind === 'textarea' || f.kind === 'json') {
      input = h('textarea', { ...common, rows: f.kind === 'json' ? 3 : 4, spellcheck: 'false' });
      input.value = initialText(f);
    } else {
      input = h('input', { ...common, type: 'text', maxlength: f.maxLength, autocomplete: 'off', spellcheck: 'false' });
      input.value = initialText(f);
    }
    const hint = [hintOf(f), f.description].filter(Boolean).join(' — ');
    container.append(h('div', { class: `field field-${f.kind}` },
      h('label', { for: id }, f.name),
      input,
      h('small', { id: hintId }, hint),
      h('span', { class: 'field-error', id: `${id}-error`, role: 'alert' })));
  }
}

/** Reads the current raw values of rendered fields. */
export function readRaw(container) {
  const raw = {};
  for (const el of container.querySelectorAll('[data-field]')) {
    raw[el.dataset.field] = el.type === 'checkbox' ? el.checked : el.value;
  }
  return raw;
}
