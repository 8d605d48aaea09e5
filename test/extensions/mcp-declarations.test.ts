import { describe, expect, it } from 'vitest';
import { argumentSchemaFromJsonSchema, maxSchemaBytes, parseArgumentsJsonSchema } from '../../src/tools/mcp/argument-schema.js';
import { parseMcpToolDeclaration, toolOutput } from '../../src/tools/mcp/mcp-tool.js';

const objectSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };

describe('JSON Schemas of tool arguments (untrusted)', () => {
  it('keeps a plain copy of an object schema', () => {
    const raw = { ...objectSchema };
    const parsed = parseArgumentsJsonSchema(raw);
    expect(parsed).toEqual(objectSchema);
    expect(parsed).not.toBe(raw);
  });

  it.each([
    ['null', null, 'not a JSON Schema object'],
    ['an array', [objectSchema], 'not a JSON Schema object'],
    ['a class instance', new Map(), 'not a JSON Schema object'],
    ['a string schema', { type: 'string' }, 'must describe an object'],
    ['a schema without a type', { properties: {} }, 'must describe an object'],
    ['a schema over the size bound', { type: 'object', description: 'x'.repeat(maxSchemaBytes) }, 'larger than 256 KiB'],
    ['a schema nested too deep', { type: 'object', properties: nested(100) }, 'nests deeper than 64'],
    [
      'a schema with a throwing getter',
      {
        type: 'object',
        get properties() {
          throw new Error('boom');
        },
      },
      'not plain JSON data (boom)',
    ],
    ['a schema with a BigInt', { type: 'object', maxProperties: 10n }, 'not plain JSON data'],
  ])('refuses %s', (_case, raw, message) => {
    expect(() => parseArgumentsJsonSchema(raw)).toThrow(message);
  });

  it('rejects fields the schema does not name, unless it allows more', () => {
    const strict = argumentSchemaFromJsonSchema(objectSchema);
    expect(strict.safeParse({ q: 'a' }).success).toBe(true);
    expect(strict.safeParse({ q: 'a', extra: 1 }).success).toBe(false);
    expect(strict.safeParse({}).success).toBe(false);
    const open = argumentSchemaFromJsonSchema({ ...objectSchema, additionalProperties: true });
    expect(open.safeParse({ q: 'a', extra: 1 }).success).toBe(true);
  });
});

describe('MCP tool declarations', () => {
  it('reads the annotations only as literal hints: readOnlyHint true, openWorldHint unless false', () => {
    const base = { name: 'search', inputSchema: objectSchema };
    expect(parseMcpToolDeclaration(base)).toMatchObject({ readOnly: false, openWorld: true, description: '' });
    expect(parseMcpToolDeclaration({ ...base, annotations: { readOnlyHint: true, openWorldHint: false } })).toMatchObject({ readOnly: true, openWorld: false });
    expect(parseMcpToolDeclaration({ ...base, annotations: { readOnlyHint: 'true', openWorldHint: 0 } })).toMatchObject({ readOnly: false, openWorld: true });
    expect(parseMcpToolDeclaration({ ...base, annotations: 'read-only' })).toMatchObject({ readOnly: false });
  });

  it.each([
    ['no name', { inputSchema: objectSchema }, 'is not a tool name'],
    ['a name with spaces', { name: 'a b', inputSchema: objectSchema }, 'is not a tool name'],
    ['a description that is not a string', { name: 'a', description: ['x'], inputSchema: objectSchema }, 'tool a: the description is not a string'],
    ['no input schema', { name: 'a' }, 'tool a: the schema is not a JSON Schema object'],
    ['something that is not an object', 'search', 'the declaration is not an object'],
  ])('refuses a declaration with %s', (_case, raw, message) => {
    expect(() => parseMcpToolDeclaration(raw)).toThrow(message);
  });
});

describe('MCP results as step results', () => {
  it('joins text blocks as the output, keeps images, and prefers structuredContent as data', () => {
    const output = toolOutput(
      'pad.list',
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'aGk=', mimeType: 'image/png' },
          { type: 'text', text: 'two' },
        ],
        structuredContent: { notes: ['one', 'two'] },
      },
      false,
    );
    expect(output).toEqual({ text: 'one\ntwo', data: { notes: ['one', 'two'] }, images: [{ mediaType: 'image/png', data: 'aGk=' }] });
  });

  it('uses the text as data without structuredContent, and marks open-world results as untrusted', () => {
    expect(toolOutput('web.fetch', { content: [{ type: 'text', text: 'page' }] }, true)).toEqual({
      text: 'page',
      data: 'page',
      metadata: { untrusted_content: true },
    });
  });

  it('fails the call when the server says isError', () => {
    expect(() => toolOutput('pad.add', { content: [{ type: 'text', text: 'full' }], isError: true }, false)).toThrow('pad.add reported an error: full');
  });

  it("fails a call the server says failed with the server's words, even beside a block that is not valid", () => {
    const result = {
      content: [
        { type: 'image' as const, data: 'not base64!', mimeType: 'image/png' },
        { type: 'text' as const, text: 'quota exceeded' },
      ],
      isError: true,
    };
    expect(() => toolOutput('pad.draw', result, false)).toThrow('pad.draw reported an error: quota exceeded');
    expect(() => toolOutput('pad.draw', { ...result, isError: false }, false)).toThrow(/base64/);
  });
});

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < depth; level++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}
