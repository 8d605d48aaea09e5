import type { z } from 'zod';
import { describeIssues } from '../host/arguments.js';
import type { ToolRegistry } from '../host/registry.js';
import { parseRule } from '../host/rules.js';
import { parseDuration } from './duration.js';
import {
  ExpressionError,
  isLiteralTemplate,
  parseTemplate,
  templateReferences,
  walkTemplates,
  type ParseOptions,
  type Template,
} from './expressions/index.js';
import type { CompiledStep, CompiledWorkflow } from './model.js';
import type { Problem } from './problems.js';
import { stepSchema, workflowSchema, type StepFile, type WorkflowFile } from './schema.js';
import { knownKeysAt, missingField } from './schema-keys.js';
import type { NodePath, WorkflowSource } from './source.js';
import { closestNames, closestToolNames, isPendingServerTool } from './suggest.js';
import { codeArguments, UntrustedValues } from './untrusted-values.js';

export interface CompileOptions {
  /**
   * Declared MCP servers whose tools are not listed yet (validation starts nothing): a step
   * naming `<server>.<tool>` of one of them is accepted here and checked once the server runs.
   */
  pendingServers?: readonly string[];
  /**
   * Tool modules were named but not imported (checking never runs workflow code): a step naming
   * a tool that is not registered may take it from one of them, so it is accepted here.
   */
  pendingModules?: boolean;
  /** Contexts beyond inputs, steps, env and secrets that expressions may read. */
  contexts?: readonly string[];
}

/**
 * Validates a parsed workflow and compiles it for the runner. Every problem is collected in one
 * pass, each located in the file.
 */
export function compileWorkflow(
  source: WorkflowSource,
  tools: ToolRegistry,
  options: CompileOptions = {},
): { workflow?: CompiledWorkflow; problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const report = (nodePath: NodePath, message: string, options: { key?: boolean } = {}) =>
    problems.push({ file: source.file, ...source.position(nodePath, options), message });

  const data = source.toData();
  const parsed = workflowSchema.safeParse(data);
  if (!parsed.success) {
    reportSchemaIssues(data, parsed.error.issues, report);
    const lenient = lenientWorkflow(data);
    if (lenient) compileSteps(source, lenient.file, tools, options, problems, warnings, lenient.invalidSteps);
    return { problems, warnings };
  }
  const file = parsed.data;
  for (const list of ['allow', 'ask', 'deny'] as const) {
    file.policy?.[list]?.forEach((rule, index) => {
      try {
        parseRule(rule);
      } catch (error) {
        report(['policy', list, index], (error as Error).message);
      }
    });
  }
  const steps = compileSteps(source, file, tools, options, problems, warnings);
  return problems.length > 0 ? { problems, warnings } : { workflow: { source, file, steps }, problems, warnings };
}

function reportSchemaIssues(
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
  report: (nodePath: NodePath, message: string, options?: { key?: boolean }) => void,
): void {
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(workflowSchema, issue.path);
      for (const key of issue.keys) {
        const suggestions = closestNames(key, known);
        const hint = suggestions.length > 0 ? `; did you mean "${suggestions[0]}"?` : known.length > 0 ? ` (expected one of: ${known.join(', ')})` : '';
        report([...issue.path, key], `unknown key "${key}"${hint}`, { key: true });
      }
      continue;
    }
    const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    if (issue.code === 'invalid_key') {
      report(issue.path, `${where}${issue.issues.map((inner) => inner.message).join('; ')}`, { key: true });
      continue;
    }
    if (issue.code === 'invalid_type' && issue.path.length > 0 && valueAt(data, issue.path) === undefined) {
      const parent = issue.path.slice(0, -1);
      report(parent, `${parent.length > 0 ? `${parent.map(String).join('.')}: ` : ''}missing required key "${String(issue.path.at(-1))}"`);
      continue;
    }
    report(issue.path, `${where}${describeIssues([issue]).replace(/^[^:]*: /, '')}`);
  }
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

interface StepContext {
  source: WorkflowSource;
  file: WorkflowFile;
  tools: ToolRegistry;
  pendingServers: readonly string[];
  pendingModules: boolean;
  parseOptions: ParseOptions;
  problems: Problem[];
  /** What is allowed but almost certainly a mistake (a data field the tool never returns). */
  warnings: Problem[];
  indexById: Map<string, number>;
  untrusted: UntrustedValues;
}

function compileSteps(
  source: WorkflowSource,
  file: WorkflowFile,
  tools: ToolRegistry,
  options: CompileOptions,
  problems: Problem[],
  warnings: Problem[],
  invalidSteps: ReadonlySet<number> = new Set(),
): CompiledStep[] {
  const context: StepContext = {
    source,
    file,
    tools,
    pendingServers: options.pendingServers ?? [],
    pendingModules: options.pendingModules ?? false,
    parseOptions: { contexts: options.contexts ?? [] },
    problems,
    warnings,
    indexById: new Map(),
    untrusted: new UntrustedValues(file),
  };
  const compiled: CompiledStep[] = [];
  file.steps.forEach((step, index) => {
    if (invalidSteps.has(index)) {
      if (!context.indexById.has(step.id)) context.indexById.set(step.id, index);
      // Its other keys are wrong, but a tool it names can still be checked in the same pass.
      if (step.tool !== '' && !tools.get(step.tool)) checkUnknownTool(context, step.tool, index);
      return;
    }
    if (context.indexById.has(step.id)) {
      reportAt(context, ['steps', index, 'id'], `duplicate step id "${step.id}" (first used by step ${context.indexById.get(step.id)! + 1})`);
    }
    const result = compileStep(context, step, index);
    if (result) compiled.push(result);
    if (!context.indexById.has(step.id)) context.indexById.set(step.id, index);
  });
  return compiled;
}

/**
 * When the file as a whole fails the schema, the steps that pass it on their own are still
 * checked (tools, references, expressions), so one pass reports every problem. Steps that fail
 * keep their place and id so references to them are not reported twice.
 */
function lenientWorkflow(data: unknown): { file: WorkflowFile; invalidSteps: Set<number> } | undefined {
  if (data === null || typeof data !== 'object' || !Array.isArray((data as { steps?: unknown }).steps)) return undefined;
  const raw = data as Record<string, unknown> & { steps: unknown[] };
  const invalidSteps = new Set<number>();
  const steps = raw.steps.map((entry, index) => {
    const checked = stepSchema.safeParse(entry);
    if (checked.success) return checked.data;
    invalidSteps.add(index);
    const { id, tool } = (entry ?? {}) as { id?: unknown; tool?: unknown };
    return { id: typeof id === 'string' ? id : `#${index + 1}`, tool: typeof tool === 'string' && tool.length <= 200 ? tool : '' };
  });
  const part = <K extends keyof WorkflowFile>(key: K): WorkflowFile[K] | undefined => {
    const checked = workflowSchema.shape[key].safeParse(raw[key]);
    return checked.success ? (checked.data as WorkflowFile[K]) : undefined;
  };
  // A name declared with a bad declaration is still declared: references to it are not reported too.
  const names = (key: 'inputs' | 'env') => {
    const declared = raw[key];
    if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) return undefined;
    return Object.fromEntries(Object.keys(declared).map((name) => [name, {}]));
  };
  const file = { version: 1, name: '', steps, inputs: names('inputs'), env: names('env'), secrets: part('secrets') } as WorkflowFile;
  return { file, invalidSteps };
}

function reportAt(context: StepContext, nodePath: NodePath, message: string, offset?: number, list: Problem[] = context.problems): void {
  const position = offset === undefined ? context.source.position(nodePath) : context.source.positionInString(nodePath, offset);
  list.push({ file: context.source.file, ...position, message });
}

function compileStep(context: StepContext, step: StepFile, index: number): CompiledStep | undefined {
  const at = (...rest: PropertyKey[]): NodePath => ['steps', index, ...rest];
  const before = context.problems.length;
  const dependencies = new Set<number>();
  const needs = step.needs === undefined ? [] : Array.isArray(step.needs) ? step.needs : [step.needs];
  needs.forEach((id, position) => {
    const target = resolveEarlierStep(context, id, step.id);
    if (typeof target === 'string') reportAt(context, Array.isArray(step.needs) ? at('needs', position) : at('needs'), target);
    else dependencies.add(target);
  });

  const tool = context.tools.get(step.tool);
  if (!tool) checkUnknownTool(context, step.tool, index);

  let withHasExpressions = false;
  let argumentsReadSteps = false;
  let argumentsUntrusted: string | undefined;
  walkTemplates(step.with ?? {}, (text, valuePath) => {
    const template = parseOrReport(context, text, at('with', ...valuePath));
    if (template && !isLiteralTemplate(template)) {
      withHasExpressions = true;
      argumentsReadSteps ||= templateReferences(template).steps.size > 0;
      checkReferences(context, template, at('with', ...valuePath), step.id, dependencies);
      const untrusted = context.untrusted.whyAny(template);
      argumentsUntrusted ??= untrusted;
      if (untrusted !== undefined && codeArguments[step.tool] === valuePath[0] && valuePath.length === 1) {
        reportAt(context, at('with', ...valuePath), injectionMessage(step.tool, String(valuePath[0]), untrusted));
      }
    }
  });
  context.untrusted.addStep(step, tool, argumentsUntrusted);

  let condition: Template | boolean | undefined = typeof step.if === 'string' ? undefined : step.if;
  let conditionUsesStatus = false;
  if (typeof step.if === 'string') {
    const text = /\$\{\{/.test(step.if) ? step.if : `\${{ ${step.if} }}`;
    const template = parseOrReport(context, text, at('if'), text === step.if ? 0 : -4);
    if (template) {
      condition = template;
      conditionUsesStatus = templateReferences(template).statusFunctions;
      checkReferences(context, template, at('if'), step.id, dependencies);
    }
  }

  if (tool && step.with !== undefined && !withHasExpressions) {
    const checked = tool.schema.safeParse(step.with);
    if (!checked.success) reportAt(context, at('with'), `invalid arguments for ${tool.name}: ${describeIssues(checked.error.issues)}`);
  }
  if (step.async && tool && tool.mode !== 'async') {
    reportAt(context, at('async'), `tool ${tool.name} cannot run detached (it does not declare async mode)`);
  }
  let timeoutMs: number | undefined;
  if (step.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(step.timeout);
    } catch (error) {
      reportAt(context, at('timeout'), (error as Error).message);
    }
  }
  if (context.problems.length > before) return undefined;
  return {
    index,
    id: step.id,
    name: step.name ?? step.id,
    tool: step.tool,
    line: context.source.position(at()).line,
    with: step.with ?? {},
    withHasExpressions,
    argumentsReadSteps,
    condition,
    conditionUsesStatus,
    dependencies: [...dependencies].sort((a, b) => a - b),
    async: step.async ?? false,
    continueOnError: step.continue_on_error ?? false,
    timeoutMs,
    resources: step.resources && { shared: step.resources.shared ?? [], exclusive: step.resources.exclusive ?? [] },
    writes: step.writes,
  };
}

function injectionMessage(tool: string, argument: string, why: string): string {
  const instead =
    tool === 'shell'
      ? 'pass it through env: instead (env: { VALUE: "${{ … }}" }) and write "$VALUE" in the script'
      : 'pass it to the program through env: instead (env: { VALUE: "${{ … }}" }), or as one of args:';
  return `${tool} ${argument} would run text from outside the workflow (${why}); ${instead}`;
}

/** Warns about `steps.X.data.field` when X's tool declares its data and never returns that field (it would read as null). */
function checkDataFields(context: StepContext, template: Template, nodePath: NodePath): void {
  const paths = templateReferences(template).valueSources.filter((source) => source.context === 'steps' && source.keys[1]?.toLowerCase() === 'data' && source.keys.length > 2);
  for (const source of paths) {
    const stepId = source.keys[0]!.toLowerCase();
    const keys = source.keys.slice(2);
    const index = context.indexById.get(stepId);
    const toolName = index === undefined ? undefined : context.file.steps[index]?.tool;
    const schema = toolName === undefined ? undefined : context.tools.get(toolName)?.data;
    if (!schema) continue;
    const missing = missingField(schema, keys);
    if (!missing) continue;
    const field = keys[missing.index]!;
    const where = missing.index === 0 ? 'its data' : `data.${keys.slice(0, missing.index).join('.')}`;
    const suggestion = closestNames(field, missing.known)[0];
    const hint = suggestion ? `; did you mean "${suggestion}"?` : missing.known.length > 0 ? ` (fields: ${missing.known.join(', ')})` : '';
    reportAt(
      context,
      nodePath,
      `warning: steps.${stepId}.data.${keys.join('.')}: ${toolName} has no field "${field}" in ${where}, so this reads as null${hint}`,
      undefined,
      context.warnings,
    );
  }
}

/** Reports a step's tool that is not registered (and not a pending server's), with what it may have meant. */
function checkUnknownTool(context: StepContext, name: string, index: number): void {
  if (isPendingServerTool(name, context.pendingServers) || (context.pendingModules && !name.includes('.'))) return;
  const suggestions = closestToolNames(name, context.tools.names(), context.pendingServers);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((suggestion) => `"${suggestion}"`).join(' or ')}?` : '';
  reportAt(context, ['steps', index, 'tool'], `unknown tool "${name}"${hint}`);
}

function parseOrReport(context: StepContext, text: string, nodePath: NodePath, offsetShift = 0): Template | undefined {
  try {
    return parseTemplate(text, context.parseOptions);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    reportAt(context, nodePath, `invalid expression: ${error.message}`, Math.max(0, error.offset + offsetShift));
    return undefined;
  }
}

function resolveEarlierStep(context: StepContext, id: string, from: string): number | string {
  const index = context.indexById.get(id);
  if (index !== undefined) return index;
  if (id === from) return `step "${from}" cannot depend on itself`;
  const later = context.file.steps.some((step) => step.id === id);
  if (later) return `step "${id}" comes later; a step can only refer to earlier steps (this also rules out cycles)`;
  const suggestions = closestNames(id, [...context.indexById.keys()]);
  return `unknown step "${id}"${suggestions.length > 0 ? `; did you mean "${suggestions[0]}"?` : ''}`;
}

function checkReferences(context: StepContext, template: Template, nodePath: NodePath, from: string, dependencies: Set<number>): void {
  const references = templateReferences(template);
  for (const id of references.steps) {
    const target = resolveEarlierStep(context, id, from);
    if (typeof target === 'string') reportAt(context, nodePath, target);
    else dependencies.add(target);
  }
  checkDataFields(context, template, nodePath);
  // Names are case-insensitive, as every property in an expression is.
  const folded = (names: readonly string[]) => new Set(names.map((name) => name.toLowerCase()));
  const declared = {
    inputs: folded(Object.keys(context.file.inputs ?? {})),
    secrets: folded(context.file.secrets ?? []),
    env: folded(Object.keys(context.file.env ?? {})),
  };
  for (const kind of ['inputs', 'secrets', 'env'] as const) {
    for (const name of references[kind]) {
      if (!declared[kind].has(name.toLowerCase())) reportAt(context, nodePath, `${kind}.${name} is not declared under "${kind}:"`);
    }
  }
}
