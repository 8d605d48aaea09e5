import type { ToolListing } from '../workflow/extensions/tool-catalog.js';
import { printable } from '../ui/safe-text.js';

/** A JSON Schema node, as `z.toJSONSchema` and MCP servers write them. */
type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
};

/** A tool's listing with its argument schema and, when it declares one, its data schema. */
export type DescribedTool = ToolListing & { schema?: unknown; data_schema?: unknown };

/**
 * `rho tools NAME`: one tool's facts, its arguments (type, required or default, description)
 * and the fields of its result data, read from the JSON Schemas its zod schemas produce.
 */
export function describeTool(tool: DescribedTool): string {
  const facts = [
    `origin ${tool.origin}`,
    `classes ${tool.classes.length > 0 ? tool.classes.join(',') : '-'}`,
    `policy ${tool.execution_policy}`,
    `mode ${tool.mode}`,
    `timeout ${Math.round(tool.timeout_ms / 1000)}s`,
  ];
  // Names and descriptions come from the tool's author (an MCP server): every line is shown as text, never obeyed by the terminal.
  const lines = [printable(tool.name), '', ...tool.description.split(/\r\n|\r|\n/).map((line) => `  ${printable(line)}`), '', `  ${facts.join(' · ')}`];
  if (tool.untrusted_content) lines.push('  results are untrusted content');
  const schema = (tool.schema ?? {}) as JsonSchema;
  lines.push('', 'ARGUMENTS', ...fieldRows(schema, schema, true, 'no arguments'));
  if (tool.data_schema !== undefined) {
    const data = tool.data_schema as JsonSchema;
    lines.push(
      '',
      'DATA (steps.<id>.data)',
      ...(data.properties ? fieldRows(data, data, false, '') : [`  ${printable(typeName(data, data))}${data.description ? `  ${printable(data.description)}` : ''}`]),
    );
  }
  return lines.join('\n');
}

function fieldRows(object: JsonSchema, root: JsonSchema, withDefaults: boolean, none: string): string[] {
  if (Object.keys(object.properties ?? {}).length === 0) return [`  ${none}`];
  const rows: string[][] = [];
  // Fields of nested objects (`questions[].id`) are listed under their parent, two levels deep.
  const add = (node: JsonSchema, prefix: string, depth: number) => {
    const required = new Set(node.required ?? []);
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      const resolved = resolve(property, root);
      const notes: string[] = [];
      if (withDefaults && required.has(name)) notes.push('required');
      if (withDefaults && resolved.default !== undefined) notes.push(`default: ${JSON.stringify(resolved.default)}`);
      const description = [resolved.description ?? property.description, notes.length > 0 ? `[${notes.join(', ')}]` : undefined].filter(Boolean).join(' ');
      rows.push([printable(`${prefix}${name}`), printable(typeName(property, root)), printable(description)]);
      if (depth >= 2) continue;
      const items = resolved.type === 'array' && resolved.items ? resolve(resolved.items, root) : undefined;
      if (resolved.properties) add(resolved, `${prefix}${name}.`, depth + 1);
      else if (items?.properties) add(items, `${prefix}${name}[].`, depth + 1);
    }
  };
  add(object, '', 1);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map(([name, type, description]) => `  ${name!.padEnd(widths[0]!)}  ${type!.padEnd(widths[1]!)}  ${description}`.trimEnd());
}

function resolve(node: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = node.$ref;
  if (!ref?.startsWith('#/$defs/')) return node;
  return { ...(root.$defs?.[ref.slice('#/$defs/'.length)] ?? {}), ...(node.description && { description: node.description }) };
}

/** A short type: `string`, `integer | null`, `"GET" | "POST"`, `string[]`, `map of string`, `object`. */
function typeName(node: JsonSchema, root: JsonSchema, depth = 0): string {
  if (depth > 4) return 'any';
  const resolved = resolve(node, root);
  if (resolved.$ref) return 'any JSON';
  if (resolved.enum) return resolved.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (resolved.const !== undefined) return JSON.stringify(resolved.const);
  const variants = resolved.anyOf ?? resolved.oneOf;
  if (variants && isJsonValue(variants)) return 'any JSON';
  if (variants) return [...new Set(variants.map((variant) => typeName(variant, root, depth + 1)))].join(' | ');
  const types = Array.isArray(resolved.type) ? resolved.type : resolved.type ? [resolved.type] : [];
  if (types.length === 0) return 'any';
  return types
    .map((type) => {
      if (type === 'array') return `${bracketed(typeName(resolved.items ?? {}, root, depth + 1))}[]`;
      if (type === 'object' && resolved.properties) return 'object';
      if (type === 'object' && typeof resolved.additionalProperties === 'object') return `map of ${typeName(resolved.additionalProperties, root, depth + 1)}`;
      return type;
    })
    .join(' | ');
}

function bracketed(type: string): string {
  return type.includes(' ') ? `(${type})` : type;
}

/** zod's JSON value schema: a union of every JSON type. */
function isJsonValue(variants: readonly JsonSchema[]): boolean {
  const types = new Set(variants.flatMap((variant) => (Array.isArray(variant.type) ? variant.type : variant.type ? [variant.type] : [])));
  return ['string', 'number', 'boolean', 'null', 'array', 'object'].every((type) => types.has(type));
}
