import { describe, it, expect } from 'vitest';
import { renderDocs, type OpenApiDoc } from '../functions/docs';

const doc: OpenApiDoc = {
  openapi: '3.1.0',
  info: {
    title: 'Admit test API',
    version: '1.2.3',
    description:
      'Intro paragraph with `inline code`.\n\nHostile: <script>alert(1)</script>\n\n```json\n{"a": "<b>"}\n```',
  },
  servers: [{ url: 'https://api.example.test' }],
  tags: [{ name: 'Events', description: 'Event management' }],
  security: [{ bearerAuth: [] }],
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    schemas: {
      Event: {
        type: 'object',
        required: ['id', 'name', 'status'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'Event identifier' },
          name: { type: 'string', minLength: 1, maxLength: 120 },
          status: { type: 'string', enum: ['draft', 'published', 'cancelled'] },
          startsAt: { type: ['string', 'null'], format: 'date-time' },
          tickets: {
            type: 'array',
            items: {
              type: 'object',
              required: ['code'],
              properties: {
                code: { type: 'string', pattern: '^[A-Z]{4}$' },
                seats: { type: 'integer', minimum: 1, maximum: 10 },
              },
            },
          },
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
          category: { $ref: '#/components/schemas/Category' },
        },
      },
      // Self-referencing schema: must terminate.
      Category: {
        type: 'object',
        required: ['label'],
        properties: {
          label: { type: 'string', description: 'Category label' },
          parent: { anyOf: [{ $ref: '#/components/schemas/Category' }, { type: 'null' }] },
          children: { type: 'array', items: { $ref: '#/components/schemas/Category' } },
        },
      },
      Error: {
        type: 'object',
        properties: { error: { type: 'string', const: 'not_found' }, message: { type: 'string' } },
      },
    },
  },
  paths: {
    '/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Health check',
        security: [],
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } }, example: { ok: true } } },
          },
        },
      },
    },
    '/events/{id}': {
      get: {
        operationId: 'getEvent',
        tags: ['Events'],
        summary: 'Fetch an event',
        description: 'Returns <b>one</b> event.',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'expand', in: 'query', schema: { type: 'string', enum: ['tickets', 'category'] }, description: 'Expand relations' },
        ],
        responses: {
          '200': { description: 'The event', content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } } },
          '404': { description: 'Not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      put: {
        operationId: 'updateEvent',
        tags: ['Events'],
        summary: 'Update an event',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
        },
        responses: { '204': { description: 'Updated' } },
      },
    },
  },
};

describe('renderDocs', () => {
  const html = renderDocs(doc);

  it('produces a complete html document', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('</html>');
    expect(html).toContain('Admit test API');
    expect(html).toContain('1.2.3');
    expect(html).not.toMatch(/<script\b/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/https?:\/\/(?!api\.example\.test)/);
  });

  it('renders operation anchors, TOC links and paths', () => {
    for (const id of ['op-getHealth', 'op-getEvent', 'op-updateEvent']) {
      expect(html).toContain(`id="${id}"`);
      expect(html).toContain(`href="#${id}"`);
    }
    expect(html).toContain('/events/{id}');
    expect(html).toContain('/health');
    expect(html).toContain('id="tag-Events"');
    expect(html).toContain('id="tag-Other"'); // untagged /health
  });

  it('renders referenced schema fields, enums, arrays and constraints', () => {
    expect(html).toContain('Event identifier');
    expect(html).toContain('>startsAt<');
    expect(html).toContain('date-time');
    expect(html).toContain('&quot;published&quot;');
    expect(html).toContain('>tickets<');
    expect(html).toContain('>seats<'); // field of the array's item objects
    expect(html).toContain('maxLength: 120');
    expect(html).toContain('Category label');
    expect(html).toContain('(recursive)');
    expect(html).toContain('map&lt;string, string&gt;');
    expect(html).toContain('Expand relations');
    expect(html).toContain('&quot;ok&quot;: true'); // response example
  });

  it('marks public and protected operations', () => {
    const health = html.slice(html.indexOf('id="op-getHealth"'));
    expect(health.slice(0, health.indexOf('</section>'))).toContain('auth public');
    const getEvent = html.slice(html.indexOf('id="op-getEvent"'));
    expect(getEvent.slice(0, getEvent.indexOf('</section>'))).toContain('requires auth: bearerAuth');
    expect(html).toContain('Authorization: Bearer &lt;token&gt;');
  });

  it('escapes document text and renders markdown', () => {
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('Returns &lt;b&gt;one&lt;/b&gt; event.');
    expect(html).toContain('<code>inline code</code>');
    expect(html).toContain('<pre><code class="lang-json">{&quot;a&quot;: &quot;&lt;b&gt;&quot;}</code></pre>');
  });

  it('terminates on cycles and deep nesting', () => {
    const deep: Record<string, unknown> = { type: 'string' };
    let cur = deep;
    for (let i = 0; i < 20; i++) cur = { type: 'object', properties: { [`level${i}`]: cur } };
    const cyclic: OpenApiDoc = {
      info: { title: 't', version: '1' },
      components: {
        schemas: {
          A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
          B: { allOf: [{ $ref: '#/components/schemas/A' }] },
          Self: { $ref: '#/components/schemas/Self' },
        },
      },
      paths: {
        '/x': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } },
            responses: { '200': { description: 'deep', content: { 'application/json': { schema: cur } } } },
          },
        },
      },
    };
    const out = renderDocs(cyclic);
    expect(out.startsWith('<!doctype html>')).toBe(true);
    expect(out).toContain('id="op-post-x"');
    expect(out).toContain('nested deeper than 6 levels');
    expect(out).toContain('>level19<');
    expect(out).not.toContain('>level0<'); // innermost levels are cut off
  });
});
