/**
 * Self-contained HTML API reference renderer for an OpenAPI 3.1 document.
 *
 * Pure and dependency-free: takes the document object (as produced by
 * @hono/zod-openapi's `getOpenAPI31Document`) and returns a complete HTML page
 * with inline CSS only — no scripts, fonts or stylesheets from the network.
 *
 * Every string taken from the document is HTML-escaped. Descriptions support a
 * small, safe markdown subset: paragraphs, `inline code`, fenced code blocks,
 * **bold**, "- " bullet lists, "#" headings and [links](https://…).
 */

// ---------------------------------------------------------------------------
// Minimal, deliberately loose OpenAPI types. Interfaces without index
// signatures so that the real `OpenAPIObject` (openapi3-ts) is assignable.
// ---------------------------------------------------------------------------

export interface OpenApiSecurityRequirement {
  [scheme: string]: readonly string[];
}

export interface OpenApiOperation {
  tags?: readonly string[];
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  parameters?: readonly unknown[];
  requestBody?: unknown;
  responses?: unknown;
  security?: readonly OpenApiSecurityRequirement[];
}

export interface OpenApiPathItem {
  summary?: string;
  description?: string;
  parameters?: readonly unknown[];
  get?: OpenApiOperation;
  put?: OpenApiOperation;
  post?: OpenApiOperation;
  delete?: OpenApiOperation;
  options?: OpenApiOperation;
  head?: OpenApiOperation;
  patch?: OpenApiOperation;
  trace?: OpenApiOperation;
}

export interface OpenApiDoc {
  openapi?: string;
  info: { title: string; version: string; description?: string };
  servers?: readonly { url: string; description?: string }[];
  tags?: readonly { name: string; description?: string }[];
  paths?: { [path: string]: OpenApiPathItem };
  security?: readonly OpenApiSecurityRequirement[];
  components?: {
    schemas?: { [name: string]: unknown };
    securitySchemes?: { [name: string]: unknown };
    parameters?: { [name: string]: unknown };
    requestBodies?: { [name: string]: unknown };
    responses?: { [name: string]: unknown };
    headers?: { [name: string]: unknown };
    examples?: { [name: string]: unknown };
  };
}

type Obj = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const MAX_DEPTH = 6;
const SAFE_INT = 9007199254740991;

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const esc = escapeHtml;

function json(v: unknown, indent?: number): string {
  try {
    const s = JSON.stringify(v, null, indent);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

/** Safe id fragment (attribute- and URL-fragment-safe). */
function slug(s: string): string {
  const out = s
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  return out || 'x';
}

function schemaAnchor(name: string): string {
  return 'schema-' + slug(name);
}

// ---------------------------------------------------------------------------
// Markdown subset
// ---------------------------------------------------------------------------

function inlineMd(text: string): string {
  const parts = text.split(/(`[^`\n]+`)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${esc(part.slice(1, -1))}</code>`;
      let h = esc(part);
      h = h.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      // Links: only http(s), root-relative and fragment targets; text and url
      // are already escaped so they cannot break out of the attribute.
      h = h.replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/|#)[^)\s]*)\)/g, '<a href="$2">$1</a>');
      return h;
    })
    .join('');
}

export function renderMarkdown(text: string | undefined): string {
  if (!text) return '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let para: string[] = [];
  let list: string[] = [];
  const flushPara = () => {
    if (para.length) out.push(`<p>${inlineMd(para.join(' '))}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list.length) out.push(`<ul>${list.map((li) => `<li>${inlineMd(li)}</li>`).join('')}</ul>`);
    list = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      flushPara();
      flushList();
      const marker = fence[1]!;
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(marker)) {
        code.push(lines[i]!);
        i++;
      }
      const lang = fence[2] ? ` class="lang-${slug(fence[2])}"` : '';
      out.push(`<pre><code${lang}>${esc(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      flushPara();
      flushList();
      continue;
    }
    const heading = /^\s*(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flushPara();
      flushList();
      const level = Math.min(6, heading[1]!.length + 2);
      out.push(`<h${level} class="md-h">${inlineMd(heading[2]!)}</h${level}>`);
      continue;
    }
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      flushPara();
      list.push(bullet[1]!);
      continue;
    }
    if (list.length && /^\s{2,}\S/.test(line)) {
      list[list.length - 1] += ' ' + line.trim();
      continue;
    }
    flushList();
    para.push(line.trim());
  }
  flushPara();
  flushList();
  return `<div class="md">${out.join('\n')}</div>`;
}

// ---------------------------------------------------------------------------
// $ref resolution
// ---------------------------------------------------------------------------

interface Ctx {
  doc: OpenApiDoc;
  /** $ref strings currently being expanded (cycle guard). */
  stack: readonly string[];
  depth: number;
}

function lookupPointer(doc: OpenApiDoc, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObj(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

function refName(ref: string): string {
  const last = ref.split('/').pop() ?? ref;
  return decodeURIComponent(last).replace(/~1/g, '/').replace(/~0/g, '~');
}

function isComponentSchemaRef(ref: string): boolean {
  return /^#\/components\/schemas\/[^/]+$/.test(ref);
}

/** Resolve non-schema objects (parameters, request bodies, responses…). */
function resolveObj(v: unknown, doc: OpenApiDoc): Obj | undefined {
  let cur = v;
  for (let i = 0; i < 10 && isObj(cur) && typeof cur.$ref === 'string'; i++) {
    const { $ref, ...rest } = cur;
    const target = lookupPointer(doc, $ref as string);
    if (!isObj(target)) return undefined;
    cur = { ...target, ...rest };
  }
  return isObj(cur) ? cur : undefined;
}

interface Norm {
  /** Resolved schema (undefined when cyclic/unresolvable/boolean). */
  s?: Obj;
  /** Boolean schema (`true` = anything, `false` = nothing). */
  bool?: boolean;
  /** Component name when reached through a $ref. */
  name?: string;
  ref?: string;
  nullable: boolean;
  cyclic: boolean;
  unresolved: boolean;
  ctx: Ctx;
}

function isNullSchema(v: unknown): boolean {
  return isObj(v) && (v.type === 'null' || (Array.isArray(v.type) && v.type.length === 1 && v.type[0] === 'null'));
}

/**
 * Follow $ref chains (cycle-guarded) and unwrap the `anyOf: [X, {type: null}]`
 * nullable idiom. Sibling keywords of $ref (e.g. description) override.
 */
function normalize(input: unknown, ctx: Ctx): Norm {
  let cur = input;
  let stack = ctx.stack;
  let name: string | undefined;
  let ref: string | undefined;
  let nullable = false;
  for (let hop = 0; hop < 16; hop++) {
    if (typeof cur === 'boolean') {
      return { bool: cur, name, ref, nullable, cyclic: false, unresolved: false, ctx: { ...ctx, stack } };
    }
    if (!isObj(cur)) {
      return { name, ref, nullable, cyclic: false, unresolved: cur !== undefined, ctx: { ...ctx, stack } };
    }
    if (typeof cur.$ref === 'string') {
      const r = cur.$ref;
      const { $ref: _ignored, ...siblings } = cur;
      name ??= refName(r);
      ref ??= r;
      if (stack.includes(r)) {
        return { s: siblings, name, ref, nullable, cyclic: true, unresolved: false, ctx: { ...ctx, stack } };
      }
      const target = lookupPointer(ctx.doc, r);
      if (target === undefined) {
        return { s: siblings, name, ref, nullable, cyclic: false, unresolved: true, ctx: { ...ctx, stack } };
      }
      stack = [...stack, r];
      cur = isObj(target) ? { ...target, ...siblings } : target;
      continue;
    }
    const variants = Array.isArray(cur.anyOf) ? cur.anyOf : Array.isArray(cur.oneOf) ? cur.oneOf : undefined;
    if (variants && !cur.properties && !cur.type) {
      const nonNull = variants.filter((v) => !isNullSchema(v));
      if (nonNull.length === 1 && nonNull.length < variants.length) {
        nullable = true;
        const { anyOf: _a, oneOf: _o, ...outer } = cur;
        const inner = nonNull[0];
        // Keep outer annotations (description, default…) alongside the inner schema.
        cur = isObj(inner) && Object.keys(outer).length ? { allOf: [inner], ...outer, __merge: true } : inner;
        continue;
      }
    }
    if (cur.__merge && Array.isArray(cur.allOf) && cur.allOf.length === 1) {
      const { allOf, __merge: _m, ...outer } = cur;
      const inner = normalize(allOf[0], { ...ctx, stack });
      if (inner.s) inner.s = { ...inner.s, ...outer };
      inner.nullable ||= nullable;
      inner.name ??= name;
      inner.ref ??= ref;
      return inner;
    }
    return { s: cur, name, ref, nullable, cyclic: false, unresolved: false, ctx: { ...ctx, stack } };
  }
  return { name, ref, nullable, cyclic: true, unresolved: false, ctx: { ...ctx, stack } };
}

// ---------------------------------------------------------------------------
// Schema labels, constraints and nested field lists
// ---------------------------------------------------------------------------

function typesOf(s: Obj): string[] {
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.additionalProperties !== undefined) return ['object'];
  if (s.items || s.prefixItems) return ['array'];
  if (Array.isArray(s.enum) && s.enum.length) {
    const ts = new Set(s.enum.map((e) => (e === null ? 'null' : typeof e === 'number' && Number.isInteger(e) ? 'integer' : typeof e)));
    return [...ts];
  }
  if ('const' in s) return [s.const === null ? 'null' : typeof s.const];
  return [];
}

function nameLink(name: string, ref: string | undefined): string {
  if (ref && isComponentSchemaRef(ref)) return `<a class="ref" href="#${schemaAnchor(name)}">${esc(name)}</a>`;
  return `<span class="ref">${esc(name)}</span>`;
}

/** One-line HTML type label, e.g. `array&lt;Pet&gt; | null`. */
function typeLabel(n: Norm, depth = 0): string {
  let label: string;
  if (n.cyclic) {
    label = `${nameLink(n.name ?? '?', n.ref)} <span class="muted">(recursive)</span>`;
  } else if (n.unresolved) {
    label = `<span class="ref">${esc(n.ref ?? 'unknown')}</span>`;
  } else if (n.bool !== undefined) {
    label = n.bool ? 'any' : 'never';
  } else if (!n.s) {
    label = 'any';
  } else if (n.name && depth > 0) {
    label = nameLink(n.name, n.ref);
  } else {
    label = rawTypeLabel(n.s, n.ctx, depth);
    if (n.name) label = `${nameLink(n.name, n.ref)} <span class="muted">${label}</span>`;
  }
  if (n.nullable && !/\bnull\b/.test(label)) label += ' | null';
  return label;
}

function rawTypeLabel(s: Obj, ctx: Ctx, depth: number): string {
  if (depth > MAX_DEPTH) return '…';
  const sub = (v: unknown) => typeLabel(normalize(v, ctx), depth + 1);
  if ('const' in s && s.type === undefined) return `const ${esc(json(s.const))}`;
  const variants = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (variants && !s.type && !s.properties) return variants.map(sub).join(' | ') || 'any';
  if (Array.isArray(s.allOf) && !s.type && !s.properties) {
    return s.allOf.length === 1 ? sub(s.allOf[0]) : s.allOf.map(sub).join(' &amp; ');
  }
  const types = typesOf(s);
  if (!types.length) return 'any';
  return types
    .map((t) => {
      if (t === 'array') {
        if (s.items !== undefined) return `array&lt;${sub(s.items)}&gt;`;
        if (Array.isArray(s.prefixItems)) return `[${s.prefixItems.map(sub).join(', ')}]`;
        return 'array';
      }
      if (t === 'object' && !s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
        return `map&lt;string, ${s.additionalProperties === true ? 'any' : sub(s.additionalProperties)}&gt;`;
      }
      const fmt = str(s.format);
      return esc(t) + (fmt && t !== 'null' ? `<span class="fmt">(${esc(fmt)})</span>` : '');
    })
    .join(' | ');
}

function chip(text: string, cls = ''): string {
  return `<span class="c${cls ? ' ' + cls : ''}">${text}</span>`;
}

function num(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Constraint chips (HTML) for a resolved schema. */
function constraints(s: Obj | undefined): string[] {
  if (!s) return [];
  const out: string[] = [];
  const v = (x: unknown) => `<code>${esc(json(x))}</code>`;
  if (Array.isArray(s.enum)) out.push(chip(`one of: ${s.enum.map(v).join(', ')}`, 'enum'));
  if ('const' in s && s.type !== undefined) out.push(chip(`const: ${v(s.const)}`, 'enum'));
  if (num(s.minLength)) out.push(chip(`minLength: ${s.minLength}`));
  if (num(s.maxLength)) out.push(chip(`maxLength: ${s.maxLength}`));
  // zod emits ±MAX_SAFE_INTEGER bounds for plain integers: noise, hide them.
  if (num(s.minimum) && Math.abs(s.minimum) !== SAFE_INT) out.push(chip(`minimum: ${s.minimum}`));
  if (num(s.maximum) && Math.abs(s.maximum) !== SAFE_INT) out.push(chip(`maximum: ${s.maximum}`));
  if (num(s.exclusiveMinimum)) out.push(chip(`&gt; ${s.exclusiveMinimum}`));
  else if (s.exclusiveMinimum === true) out.push(chip('exclusive minimum'));
  if (num(s.exclusiveMaximum)) out.push(chip(`&lt; ${s.exclusiveMaximum}`));
  else if (s.exclusiveMaximum === true) out.push(chip('exclusive maximum'));
  if (num(s.multipleOf)) out.push(chip(`multipleOf: ${s.multipleOf}`));
  if (typeof s.pattern === 'string') out.push(chip(`pattern: <code>${esc(s.pattern)}</code>`));
  if (num(s.minItems)) out.push(chip(`minItems: ${s.minItems}`));
  if (num(s.maxItems)) out.push(chip(`maxItems: ${s.maxItems}`));
  if (s.uniqueItems === true) out.push(chip('unique items'));
  if (num(s.minProperties)) out.push(chip(`minProperties: ${s.minProperties}`));
  if (num(s.maxProperties)) out.push(chip(`maxProperties: ${s.maxProperties}`));
  if (s.default !== undefined) out.push(chip(`default: ${v(s.default)}`));
  if (s.readOnly === true) out.push(chip('read-only'));
  if (s.writeOnly === true) out.push(chip('write-only'));
  if (s.deprecated === true) out.push(chip('deprecated', 'warn'));
  if (s.example !== undefined) out.push(chip(`e.g. ${v(s.example)}`, 'ex'));
  else if (Array.isArray(s.examples) && s.examples.length) out.push(chip(`e.g. ${v(s.examples[0])}`, 'ex'));
  return out;
}

function depthOf(ctx: Ctx): Ctx {
  return { ...ctx, depth: ctx.depth + 1 };
}

function isObjectLike(s: Obj): boolean {
  return !!s.properties || typesOf(s).includes('object');
}

/** Nested content under a schema: fields, array items, variants… */
function renderChildren(n: Norm): string {
  const s = n.s;
  if (!s || n.cyclic || n.unresolved) return '';
  const ctx = n.ctx;
  if (ctx.depth >= MAX_DEPTH) {
    const hasMore = s.properties || s.items || s.anyOf || s.oneOf || s.allOf || isObj(s.additionalProperties);
    return hasMore ? `<div class="muted small">… nested deeper than ${MAX_DEPTH} levels</div>` : '';
  }
  const parts: string[] = [];

  // allOf: merge object members into one field list when possible.
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const members = s.allOf.map((m) => normalize(m, ctx));
    const mergeable = members.every((m) => m.s && !m.cyclic && !m.unresolved && isObjectLike(m.s) && !m.s.allOf);
    if (mergeable && (members.length > 1 || s.properties)) {
      const props: Obj = {};
      const required = new Set<string>();
      for (const m of members) {
        Object.assign(props, isObj(m.s!.properties) ? m.s!.properties : {});
        if (Array.isArray(m.s!.required)) for (const r of m.s!.required) if (typeof r === 'string') required.add(r);
      }
      if (isObj(s.properties)) Object.assign(props, s.properties);
      if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
      // Merged members may come from different refs; use the widest stack.
      const stack = [...new Set(members.flatMap((m) => m.ctx.stack))];
      parts.push(renderFields(props, [...required], { ...ctx, stack }));
      return parts.join('');
    }
    if (members.length === 1 && !s.properties) {
      return renderChildren({ ...members[0]!, ctx: members[0]!.ctx });
    }
    parts.push(renderVariants('All of', s.allOf, ctx));
  }

  for (const key of ['oneOf', 'anyOf'] as const) {
    const vs = s[key];
    if (Array.isArray(vs) && vs.length) {
      parts.push(renderVariants(key === 'oneOf' ? 'One of' : 'Any of', vs, ctx));
    }
  }

  if (isObj(s.properties) && Object.keys(s.properties).length) {
    const req = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
    parts.push(renderFields(s.properties, req, ctx));
  }

  if (s.additionalProperties !== undefined && s.additionalProperties !== false && s.properties) {
    const ap = normalize(s.additionalProperties, depthOf(ctx));
    parts.push(
      `<div class="sub"><span class="muted">additional properties:</span> <span class="type">${typeLabel(ap, 1)}</span>${renderChildren(ap)}</div>`,
    );
  } else if (isObj(s.additionalProperties) && !s.properties) {
    const ap = normalize(s.additionalProperties, ctx);
    const cs = constraints(ap.s);
    const inner = renderChildren({ ...ap, ctx: depthOf(ap.ctx) });
    if (cs.length || inner) {
      parts.push(`<div class="sub"><span class="muted">values:</span> ${cs.join(' ')}${inner}</div>`);
    }
  }

  if (s.items !== undefined && typesOf(s).includes('array')) {
    const it = normalize(s.items, ctx);
    const cs = constraints(it.s);
    const desc = it.s && str(it.s.description);
    const inner = renderChildren({ ...it, ctx: depthOf(it.ctx) });
    if (cs.length || inner || desc) {
      parts.push(
        `<div class="sub"><span class="muted">items:</span> ${cs.join(' ')}${desc ? renderMarkdown(desc) : ''}${inner}</div>`,
      );
    }
  }
  return parts.join('');
}

function renderVariants(title: string, variants: readonly unknown[], ctx: Ctx): string {
  let informative = false;
  const items = variants.map((v) => {
    const n = normalize(v, depthOf(ctx));
    const cs = constraints(n.s);
    const desc = n.s && !n.cyclic ? str(n.s.description) : undefined;
    const children = renderChildren(n);
    if (cs.length || desc || children) informative = true;
    return `<li><span class="type">${typeLabel(n)}</span> ${cs.join(' ')}${desc ? renderMarkdown(desc) : ''}${children}</li>`;
  });
  // Plain variants (e.g. `string | number`) are already fully shown by the type label.
  if (!informative) return '';
  return `<div class="sub"><span class="muted">${esc(title)}:</span><ol class="variants">${items.join('')}</ol></div>`;
}

function renderFields(props: Obj, required: readonly string[], ctx: Ctx): string {
  const rows = Object.entries(props).map(([name, schema]) => {
    const n = normalize(schema, depthOf(ctx));
    const req = required.includes(name);
    const cs = constraints(n.s);
    const desc = n.s ? str(n.s.description) : undefined;
    return (
      `<li><div class="field"><code class="fname">${esc(name)}</code> ` +
      `<span class="type">${typeLabel(n)}</span> ` +
      (req ? '<span class="req">required</span>' : '<span class="opt">optional</span>') +
      (cs.length ? ' ' + cs.join(' ') : '') +
      `</div>${desc ? renderMarkdown(desc) : ''}${renderChildren(n)}</li>`
    );
  });
  return `<ul class="fields">${rows.join('')}</ul>`;
}

/** A full schema block: type line + constraints + description + nested fields. */
function renderSchema(schema: unknown, doc: OpenApiDoc, opts: { withDescription?: boolean; stack?: string[] } = {}): string {
  const n = normalize(schema, { doc, stack: opts.stack ?? [], depth: 0 });
  const cs = constraints(n.s);
  const desc = opts.withDescription !== false && n.s ? str(n.s.description) : undefined;
  return (
    `<div class="schema"><div class="schema-head"><span class="type">${typeLabel(n)}</span>` +
    (cs.length ? ' ' + cs.join(' ') : '') +
    `</div>${desc ? renderMarkdown(desc) : ''}${renderChildren(n)}</div>`
  );
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

interface OpEntry {
  path: string;
  method: string;
  op: OpenApiOperation;
  pathItem: OpenApiPathItem;
  id: string;
  tag: string;
}

function collectOperations(doc: OpenApiDoc): OpEntry[] {
  const ops: OpEntry[] = [];
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!isObj(item)) continue;
    const pathItem = item as OpenApiPathItem;
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const base = 'op-' + slug(str(op.operationId) || `${method}-${path}`);
      let id = base;
      for (let i = 2; used.has(id); i++) id = `${base}-${i}`;
      used.add(id);
      const tag = Array.isArray(op.tags) && typeof op.tags[0] === 'string' && op.tags[0] ? op.tags[0] : 'Other';
      ops.push({ path, method, op, pathItem, id, tag });
    }
  }
  return ops;
}

function groupByTag(doc: OpenApiDoc, ops: OpEntry[]): { name: string; description?: string; ops: OpEntry[] }[] {
  const order: string[] = [];
  const descs = new Map<string, string | undefined>();
  for (const t of doc.tags ?? []) {
    if (t && typeof t.name === 'string' && !descs.has(t.name)) {
      order.push(t.name);
      descs.set(t.name, t.description);
    }
  }
  for (const o of ops) if (!order.includes(o.tag) && o.tag !== 'Other') order.push(o.tag);
  order.push('Other');
  return order
    .map((name) => ({ name, description: descs.get(name), ops: ops.filter((o) => o.tag === name) }))
    .filter((g) => g.ops.length > 0);
}

type AuthState = { kind: 'public' } | { kind: 'required' | 'optional'; schemes: string[] };

function authOf(op: OpenApiOperation, doc: OpenApiDoc): AuthState {
  const sec = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  if (!sec.length) return { kind: 'public' };
  const schemes = [...new Set(sec.flatMap((req) => (isObj(req) ? Object.keys(req) : [])))];
  const optional = sec.some((req) => isObj(req) && Object.keys(req).length === 0);
  if (!schemes.length) return { kind: 'public' };
  return { kind: optional ? 'optional' : 'required', schemes };
}

function authBadge(a: AuthState): string {
  if (a.kind === 'public') return '<span class="auth public" title="No authentication required">public</span>';
  const names = a.schemes.map(esc).join(', ');
  return a.kind === 'optional'
    ? `<span class="auth optional" title="Authentication optional">🔓 optional auth: ${names}</span>`
    : `<span class="auth required" title="Authentication required">🔒 requires auth: ${names}</span>`;
}

function renderParameters(entry: OpEntry, doc: OpenApiDoc): string {
  const all = [...(entry.pathItem.parameters ?? []), ...(entry.op.parameters ?? [])]
    .map((p) => resolveObj(p, doc))
    .filter((p): p is Obj => !!p && typeof p.name === 'string');
  // Operation-level parameters override path-level ones with the same name+in.
  const byKey = new Map<string, Obj>();
  for (const p of all) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  const params = [...byKey.values()];
  if (!params.length) return '';
  const inOrder = ['path', 'query', 'header', 'cookie'];
  params.sort((a, b) => inOrder.indexOf(String(a.in)) - inOrder.indexOf(String(b.in)));
  const rows = params.map((p) => {
    let schema: unknown = p.schema;
    if (schema === undefined && isObj(p.content)) {
      const first = Object.values(p.content)[0];
      if (isObj(first)) schema = first.schema;
    }
    const n = normalize(schema, { doc, stack: [], depth: 0 });
    const cs = constraints(n.s);
    if (p.example !== undefined) cs.push(chip(`e.g. <code>${esc(json(p.example))}</code>`, 'ex'));
    if (p.deprecated === true) cs.push(chip('deprecated', 'warn'));
    const desc = str(p.description) ?? (n.s ? str(n.s.description) : undefined);
    const required = p.required === true || p.in === 'path';
    return (
      `<tr><td><code class="fname">${esc(p.name)}</code>${required ? ' <span class="req">required</span>' : ''}</td>` +
      `<td><span class="in">${esc(p.in ?? '')}</span></td>` +
      `<td><span class="type">${schema === undefined ? 'any' : typeLabel(n)}</span></td>` +
      `<td>${cs.join(' ')}</td>` +
      `<td>${desc ? renderMarkdown(desc) : ''}</td></tr>`
    );
  });
  return (
    '<h4>Parameters</h4><div class="table-wrap"><table class="params"><thead><tr>' +
    '<th>Name</th><th>In</th><th>Type</th><th>Constraints</th><th>Description</th>' +
    `</tr></thead><tbody>${rows.join('')}</tbody></table></div>`
  );
}

function renderExamples(media: Obj, doc: OpenApiDoc): string {
  const out: string[] = [];
  if (media.example !== undefined) {
    out.push(`<div class="example"><div class="label">Example</div><pre>${esc(json(media.example, 2))}</pre></div>`);
  }
  if (isObj(media.examples)) {
    for (const [name, raw] of Object.entries(media.examples)) {
      const ex = resolveObj(raw, doc);
      if (!ex || ex.value === undefined) continue;
      const title = str(ex.summary) ?? name;
      out.push(`<div class="example"><div class="label">Example: ${esc(title)}</div><pre>${esc(json(ex.value, 2))}</pre></div>`);
    }
  }
  if (!out.length) {
    // Fall back to an example attached to the (resolved) schema itself.
    const n = normalize(media.schema, { doc, stack: [], depth: 0 });
    const ex = n.s?.example ?? (Array.isArray(n.s?.examples) ? (n.s!.examples as unknown[])[0] : undefined);
    if (ex !== undefined) {
      out.push(`<div class="example"><div class="label">Example</div><pre>${esc(json(ex, 2))}</pre></div>`);
    }
  }
  return out.join('');
}

function renderContent(content: unknown, doc: OpenApiDoc): string {
  if (!isObj(content)) return '';
  return Object.entries(content)
    .map(([type, rawMedia]) => {
      const media = isObj(rawMedia) ? rawMedia : {};
      const schema = media.schema !== undefined ? renderSchema(media.schema, doc) : '';
      return `<div class="media"><div class="ctype"><code>${esc(type)}</code></div>${schema}${renderExamples(media, doc)}</div>`;
    })
    .join('');
}

function renderRequestBody(entry: OpEntry, doc: OpenApiDoc): string {
  const body = resolveObj(entry.op.requestBody, doc);
  if (!body) return '';
  const req = body.required === true ? ' <span class="req">required</span>' : ' <span class="opt">optional</span>';
  return `<h4>Request body${req}</h4>${renderMarkdown(str(body.description))}${renderContent(body.content, doc)}`;
}

function statusClass(code: string): string {
  const c = code.charAt(0);
  return c === '2' ? 's2' : c === '3' ? 's3' : c === '4' ? 's4' : c === '5' ? 's5' : 'sx';
}

function renderResponses(entry: OpEntry, doc: OpenApiDoc): string {
  const responses = entry.op.responses;
  if (!isObj(responses)) return '';
  const rows = Object.entries(responses)
    .filter(([code]) => !code.startsWith('x-'))
    .map(([code, raw]) => {
      const r = resolveObj(raw, doc) ?? {};
      let headers = '';
      if (isObj(r.headers) && Object.keys(r.headers).length) {
        const hs = Object.entries(r.headers).map(([name, rawH]) => {
          const h = resolveObj(rawH, doc) ?? {};
          const n = normalize(h.schema, { doc, stack: [], depth: 0 });
          const d = str(h.description);
          return `<li><code class="fname">${esc(name)}</code> <span class="type">${h.schema === undefined ? 'string' : typeLabel(n)}</span>${d ? renderMarkdown(d) : ''}</li>`;
        });
        headers = `<div class="sub"><span class="muted">Headers:</span><ul class="fields">${hs.join('')}</ul></div>`;
      }
      return (
        `<div class="response"><div class="response-head"><span class="status ${statusClass(code)}">${esc(code)}</span> ` +
        `${renderMarkdown(str(r.description)) || '<span class="muted">No description</span>'}</div>` +
        `${headers}${renderContent(r.content, doc)}</div>`
      );
    });
  return rows.length ? `<h4>Responses</h4>${rows.join('')}` : '';
}

function renderOperation(entry: OpEntry, doc: OpenApiDoc): string {
  const { op, method, path, id } = entry;
  const auth = authOf(op, doc);
  const deprecated = op.deprecated === true;
  return (
    `<section class="op${deprecated ? ' deprecated' : ''}" id="${esc(id)}">` +
    `<h3 class="op-head"><a class="anchor" href="#${esc(id)}" aria-label="Link to this operation">#</a>` +
    `<span class="method m-${method}">${method.toUpperCase()}</span> <code class="path">${esc(path)}</code></h3>` +
    `<div class="op-meta">${op.summary ? `<span class="summary">${esc(op.summary)}</span>` : ''}` +
    `${authBadge(auth)}${deprecated ? ' <span class="c warn">deprecated</span>' : ''}` +
    `${op.operationId ? ` <span class="opid">operationId: <code>${esc(op.operationId)}</code></span>` : ''}</div>` +
    renderMarkdown(op.description) +
    renderParameters(entry, doc) +
    renderRequestBody(entry, doc) +
    renderResponses(entry, doc) +
    '</section>'
  );
}

// ---------------------------------------------------------------------------
// Page sections
// ---------------------------------------------------------------------------

function renderAuthSection(doc: OpenApiDoc): string {
  const schemes = doc.components?.securitySchemes;
  if (!isObj(schemes) || !Object.keys(schemes).length) return '';
  const items = Object.entries(schemes).map(([name, raw]) => {
    const s = resolveObj(raw, doc) ?? {};
    const type = str(s.type);
    let how: string;
    if (type === 'http' && str(s.scheme)?.toLowerCase() === 'bearer') {
      const fmt = str(s.bearerFormat);
      how = `HTTP bearer token${fmt ? ` (${esc(fmt)})` : ''}: send <code>Authorization: Bearer &lt;token&gt;</code>.`;
    } else if (type === 'http' && str(s.scheme)?.toLowerCase() === 'basic') {
      how = 'HTTP basic authentication: send <code>Authorization: Basic &lt;base64(user:password)&gt;</code>.';
    } else if (type === 'http') {
      how = `HTTP <code>${esc(s.scheme ?? '')}</code> authentication via the <code>Authorization</code> header.`;
    } else if (type === 'apiKey') {
      how = `API key in ${esc(s.in ?? 'header')} <code>${esc(s.name ?? '')}</code>.`;
    } else if (type === 'oauth2') {
      how = 'OAuth 2.0.';
    } else if (type === 'openIdConnect') {
      how = `OpenID Connect${s.openIdConnectUrl ? ` (<code>${esc(s.openIdConnectUrl)}</code>)` : ''}.`;
    } else {
      how = esc(type ?? 'unknown scheme');
    }
    return `<li><code class="fname">${esc(name)}</code> — ${how}${renderMarkdown(str(s.description))}</li>`;
  });
  const global = Array.isArray(doc.security) && doc.security.length
    ? '<p>Unless marked <span class="auth public">public</span>, operations require authentication.</p>'
    : '<p>Operations that require authentication are marked <span class="auth required">🔒 requires auth</span>.</p>';
  return `<section class="auth-section" id="authentication"><h2>Authentication</h2><ul class="schemes">${items.join('')}</ul>${global}</section>`;
}

function renderToc(groups: ReturnType<typeof groupByTag>, hasSchemas: boolean, hasAuth: boolean): string {
  const gs = groups.map(
    (g) =>
      `<li><a class="toc-tag" href="#tag-${slug(g.name)}">${esc(g.name)}</a><ul>` +
      g.ops
        .map(
          (o) =>
            `<li><a href="#${esc(o.id)}" title="${esc(o.op.summary ?? '')}"><span class="method sm m-${o.method}">${o.method.toUpperCase()}</span> ` +
            `<code class="path">${esc(o.path)}</code></a></li>`,
        )
        .join('') +
      '</ul></li>',
  );
  const extras =
    (hasAuth ? '<li><a class="toc-tag" href="#authentication">Authentication</a></li>' : '') +
    gs.join('') +
    (hasSchemas ? '<li><a class="toc-tag" href="#schemas">Schemas</a></li>' : '');
  return `<nav class="toc" aria-label="Contents"><div class="toc-title">Contents</div><ul>${extras}</ul></nav>`;
}

function renderSchemasSection(doc: OpenApiDoc): string {
  const schemas = doc.components?.schemas;
  if (!isObj(schemas) || !Object.keys(schemas).length) return '';
  const items = Object.entries(schemas).map(([name, schema]) => {
    const ref = `#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return (
      `<section class="component" id="${schemaAnchor(name)}"><h3><code>${esc(name)}</code></h3>` +
      renderSchema(schema, doc, { stack: [ref] }) +
      '</section>'
    );
  });
  return `<section id="schemas"><h2 class="tag-title">Schemas</h2>${items.join('')}</section>`;
}

const CSS = `
:root{--bg:#fff;--fg:#1f2328;--muted:#656d76;--border:#d0d7de;--soft:#f6f8fa;--accent:#0969da;--code:#eff1f3;
--get:#0969da;--post:#1a7f37;--put:#9a6700;--patch:#8250df;--delete:#cf222e;--other:#57606a}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--border:#30363d;--soft:#161b22;--accent:#4493f8;--code:#1f242c;
--get:#4493f8;--post:#3fb950;--put:#d29922;--patch:#a371f7;--delete:#f85149;--other:#8d96a0}}
*{box-sizing:border-box}
html{scroll-behavior:smooth}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
code,pre,.path,.type,.fname{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
.layout{display:grid;grid-template-columns:280px minmax(0,1fr);max-width:1400px;margin:0 auto}
.toc{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:20px 12px 40px 20px;border-right:1px solid var(--border)}
.toc-title{font-weight:600;text-transform:uppercase;font-size:11px;letter-spacing:.06em;color:var(--muted);margin-bottom:6px}
.toc ul{list-style:none;margin:0;padding:0}.toc ul ul{margin:2px 0 10px}
.toc li a{display:block;padding:2px 4px;border-radius:4px;color:var(--fg);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.toc li a:hover{background:var(--soft);text-decoration:none}
.toc .toc-tag{font-weight:600;margin-top:6px}
main{padding:24px 36px 80px;min-width:0}
header h1{margin:0 0 4px;font-size:26px}
.version{display:inline-block;font-size:12px;font-weight:500;padding:1px 8px;border-radius:10px;background:var(--soft);border:1px solid var(--border);color:var(--muted);vertical-align:middle;margin-left:6px}
.servers{color:var(--muted)}
h2{font-size:20px;margin:32px 0 8px;padding-bottom:6px;border-bottom:1px solid var(--border)}
h4{margin:16px 0 6px;font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.md p{margin:6px 0}.md ul{margin:6px 0;padding-left:20px}.md-h{margin:12px 0 4px}
:not(pre)>code{background:var(--code);padding:1px 4px;border-radius:4px}
pre{background:var(--soft);border:1px solid var(--border);border-radius:6px;padding:10px 12px;overflow:auto;margin:6px 0;max-height:420px}
pre code{background:none;padding:0}
.op{border:1px solid var(--border);border-radius:8px;padding:12px 16px;margin:14px 0;scroll-margin-top:12px}
.op.deprecated .path{text-decoration:line-through}
.op-head{margin:0;font-size:15px;display:flex;align-items:center;gap:8px;flex-wrap:wrap;position:relative}
.op-head .path{font-size:14px;font-weight:600;background:none;padding:0}
.anchor{position:absolute;left:-14px;color:var(--muted);opacity:0;font-weight:400}.op-head:hover .anchor{opacity:1}
.op-meta{margin:6px 0;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.summary{font-weight:600}
.opid{color:var(--muted);font-size:12px}
.method{display:inline-block;min-width:58px;text-align:center;font:700 11px/1 ui-monospace,Menlo,Consolas,monospace;padding:5px 6px;border-radius:4px;color:#fff;background:var(--other)}
.method.sm{min-width:46px;font-size:9.5px;padding:3px 4px;vertical-align:1px}
.m-get{background:var(--get)}.m-post{background:var(--post)}.m-put{background:var(--put)}.m-patch{background:var(--patch)}.m-delete{background:var(--delete)}
.auth{font-size:11.5px;padding:1px 8px;border-radius:10px;border:1px solid var(--border);white-space:nowrap}
.auth.public{color:var(--post);border-color:var(--post)}.auth.required{color:var(--put);border-color:var(--put)}.auth.optional{color:var(--muted)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border-bottom:1px solid var(--border);padding:6px 8px;text-align:left;vertical-align:top}
th{font-size:11.5px;color:var(--muted);font-weight:600;background:var(--soft)}
td .md p{margin:0}
.in{color:var(--muted);font-size:12px}
.req{color:var(--delete);font-size:11px;font-weight:600}.opt{color:var(--muted);font-size:11px}
.type{color:var(--patch)}.type .muted{color:var(--muted)}
.ref{font-weight:600}
.fmt{color:var(--muted);margin-left:1px}
.c{display:inline-block;font-size:11px;padding:0 6px;border-radius:4px;background:var(--soft);border:1px solid var(--border);color:var(--muted);margin:1px 2px 1px 0}
.c code{font-size:11px;padding:0 2px}
.c.enum{color:var(--fg)}.c.warn{color:var(--delete);border-color:var(--delete)}.c.ex{font-style:italic}
.media{margin:6px 0 10px}
.ctype{margin:4px 0}
.schema{border-left:3px solid var(--border);padding:2px 0 2px 10px;margin:4px 0}
.fields{list-style:none;margin:4px 0;padding-left:0}
.fields .fields,.sub .fields{padding-left:16px;border-left:1px dashed var(--border);margin-left:4px}
.fields>li{padding:3px 0}
.fields li .md{color:var(--muted);margin-left:2px}.fields li .md p{margin:1px 0}
.field{display:flex;gap:6px;align-items:baseline;flex-wrap:wrap}
.fname{font-weight:600;background:none!important;padding:0!important}
.sub{margin:4px 0 4px 4px}
.variants{margin:2px 0;padding-left:22px}
.response{border-top:1px solid var(--border);padding:8px 0}
.response:first-of-type{border-top:none}
.response-head{display:flex;gap:8px;align-items:baseline}.response-head .md p{margin:0}
.status{font:700 12px ui-monospace,Menlo,Consolas,monospace;padding:1px 7px;border-radius:4px;color:#fff;background:var(--other)}
.s2{background:var(--post)}.s3{background:var(--get)}.s4{background:var(--put)}.s5{background:var(--delete)}
.example .label{font-size:11.5px;color:var(--muted);margin-top:6px}
.muted{color:var(--muted)}.small{font-size:12px}
.tag-title{scroll-margin-top:12px}
.component{margin:12px 0 20px;scroll-margin-top:12px}.component h3{margin:0 0 4px;font-size:15px}
.schemes{padding-left:20px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
@media (max-width:900px){.layout{display:block}.toc{position:static;max-height:none;border-right:none;border-bottom:1px solid var(--border)}main{padding:16px}}
`;

// ---------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------

export function renderDocs(doc: OpenApiDoc): string {
  const info = isObj(doc.info) ? doc.info : { title: 'API', version: '' };
  const title = str(info.title) || 'API';
  const version = str(info.version) ?? '';
  const ops = collectOperations(doc);
  const groups = groupByTag(doc, ops);
  const authSection = renderAuthSection(doc);
  const schemasSection = renderSchemasSection(doc);

  const servers = Array.isArray(doc.servers) && doc.servers.length
    ? `<p class="servers">Base URL${doc.servers.length > 1 ? 's' : ''}: ${doc.servers
        .filter(isObj)
        .map((s) => `<code>${esc(s.url ?? '')}</code>${s.description ? ` <span class="muted">(${esc(s.description)})</span>` : ''}`)
        .join(', ')}</p>`
    : '';

  const body = groups
    .map(
      (g) =>
        `<section class="tag" id="tag-${slug(g.name)}"><h2 class="tag-title">${esc(g.name)}</h2>` +
        renderMarkdown(g.description) +
        g.ops.map((o) => renderOperation(o, doc)).join('') +
        '</section>',
    )
    .join('');

  return (
    '<!doctype html>\n' +
    '<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    `<title>${esc(title)}${version ? ` ${esc(version)}` : ''} — API reference</title>` +
    `<style>${CSS}</style></head><body><div class="layout">` +
    renderToc(groups, !!schemasSection, !!authSection) +
    '<main><header>' +
    `<h1>${esc(title)}${version ? `<span class="version">v${esc(version)}</span>` : ''}</h1>` +
    (doc.openapi ? `<div class="muted small">OpenAPI ${esc(doc.openapi)}</div>` : '') +
    servers +
    renderMarkdown(str(info.description)) +
    '</header>' +
    authSection +
    (body || '<p class="muted">No operations.</p>') +
    schemasSection +
    `<footer>Generated from the OpenAPI document · ${ops.length} operation${ops.length === 1 ? '' : 's'}</footer>` +
    '</main></div></body></html>\n'
  );
}
