import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { checkToolDefinition, isZodSchema } from '../../host/tool-declaration.js';
import { toolDefinitionKey, toolFromCheckedDefinition, type Tool } from '../../host/tool.js';
import { argumentSchemaFromJsonSchema, parseArgumentsJsonSchema } from '../../tools/mcp/argument-schema.js';

/** Module tool names have no `.`, which is reserved for MCP tools (`<server>.<tool>`). */
const moduleToolNamePattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** How long reading one declaration (and turning its schema into JSON Schema) may take. */
export const declarationTimeBudgetMs = 1000;

/**
 * The schema a module declares, as the host checks it: a zod schema (kept, so the tool gets its
 * own parsed values) or a plain JSON Schema object (checked by a zod schema built from it).
 * Either way it must turn into a bounded JSON Schema of an arguments object, which `rho tools` lists.
 */
function moduleSchema(value: unknown): unknown {
  if (isZodSchema(value)) {
    parseArgumentsJsonSchema(z.toJSONSchema(value, { io: 'input', unrepresentable: 'any' }));
    return value;
  }
  return argumentSchemaFromJsonSchema(parseArgumentsJsonSchema(value));
}

export interface CheckedDeclaration {
  /** Undefined when the tool is left out. */
  tool?: Tool;
  /** One line when the tool is left out; otherwise one per field that fell back to its default. */
  warnings: string[];
}

/**
 * Checks a module's tool declaration as untrusted data, within a time budget, with the host's
 * checks (`checkToolDefinition`): what cannot be used leaves the tool out, a bad optional field
 * means its default; schemas declared as functions are built here, within the budget. A
 * module's `defineTool` may come from another copy of rho: the definition it was made from is
 * checked again here. The functions are kept as they are: module code is trusted, only its
 * declaration is checked.
 */
export function checkModuleDeclaration(raw: unknown, label: string, timeBudgetMs = declarationTimeBudgetMs): CheckedDeclaration {
  const started = performance.now();
  const definition = typeof raw === 'object' && raw !== null && toolDefinitionKey in raw ? (raw as Record<symbol, unknown>)[toolDefinitionKey] : raw;
  const check = checkToolDefinition(definition, { schemaOf: moduleSchema, buildNow: true });
  const leftOut = (name: string | undefined, reason: string): CheckedDeclaration => ({
    warnings: [`${label}: ${name === undefined ? 'a tool' : `tool ${name}`} was left out: ${reason}`],
  });
  if (!check.ok) return leftOut(check.name, check.problem);
  const { name } = check.definition;
  if (!moduleToolNamePattern.test(name)) {
    return leftOut(name, `its name ${JSON.stringify(name.slice(0, 80))} is not a tool name (a letter, then letters, digits, _ or -; at most 64)`);
  }
  const elapsedMs = performance.now() - started;
  if (elapsedMs > timeBudgetMs) return leftOut(name, `reading its declaration took ${Math.round(elapsedMs)}ms, over the ${timeBudgetMs}ms limit`);
  return { tool: toolFromCheckedDefinition(check.definition, 'host'), warnings: check.warnings.map((warning) => `${label}: tool ${name}: ${warning}`) };
}
