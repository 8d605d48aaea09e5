import { z } from 'zod';
import { describeIssues } from '../../host/arguments.js';
import { HostError, ToolError } from '../../host/errors.js';
import type { InputDeclaration, WorkflowFile } from '../../workflow/schema.js';
import { listTasks, type ListedInput } from '../../workflow/task-list.js';

/** What `tools/list` offers for the default task (the file's top-level steps). */
export const defaultToolName = 'default';

/** One task of the served file as an MCP tool. */
export interface TaskTool {
  name: string;
  /** The task `rho run FILE TASK` names; undefined for the default task. */
  task: string | undefined;
  description: string | undefined;
  /** The JSON Schema `tools/list` shows, made from `arguments`. */
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** When the task declares `outputs:`: an object with one property for each. */
  outputSchema?: { type: 'object'; properties: Record<string, object>; required: string[] };
  /** The checker of a call's arguments: the task's inputs, typed as declared. */
  arguments: z.ZodType<Record<string, unknown>>;
}

/** An input's value as a tool argument: the types `-i NAME=VALUE` parses, with the same size bounds as the file's defaults. */
function argumentSchema(input: ListedInput, declared: InputDeclaration): z.ZodType {
  const text = z.string().max(65_536);
  const typed: z.ZodType =
    input.type === 'number'
      ? z.number().finite()
      : input.type === 'boolean'
        ? z.boolean()
        : input.type === 'choice'
          ? z.enum(declared.options as [string, ...string[]])
          : input.type === 'array'
            ? z.array(text).max(10_000)
            : text;
  const described = input.description === undefined ? typed : typed.describe(input.description);
  if (input.default !== undefined) return described.default(input.default as never);
  return input.required ? described : described.optional();
}

function argumentsSchema(inputs: readonly ListedInput[], declared: Readonly<Record<string, InputDeclaration>>): z.ZodType<Record<string, unknown>> {
  return z.strictObject(Object.fromEntries(inputs.map((input) => [input.name, argumentSchema(input, declared[input.name]!)])));
}

function outputSchemaOf(names: readonly string[]): TaskTool['outputSchema'] {
  if (names.length === 0) return undefined;
  // An output is whatever its expression yields: any JSON value.
  return { type: 'object', properties: Object.fromEntries(names.map((name) => [name, {}])), required: [...names] };
}

/**
 * The tools a workflow file offers: each public task, and the default task as `default` (left
 * out, with a warning, when a task already has that name). A task's arguments are the file's
 * inputs and its own, as `rho list` shows them; private tasks are not offered.
 */
export function taskTools(fileName: string, file: WorkflowFile, warn: (line: string) => void): TaskTool[] {
  const listing = listTasks(fileName, file);
  const tools: TaskTool[] = [];
  for (const task of listing.tasks) {
    if (task.name === null && Object.hasOwn(file.tasks ?? {}, defaultToolName)) {
      warn(`rho: the default task of ${fileName} is not offered: a task is named ${defaultToolName}`);
      continue;
    }
    const own = task.name === null ? {} : (file.tasks?.[task.name]?.inputs ?? {});
    const declared = { ...(file.inputs ?? {}), ...own };
    const inputs = [...listing.inputs, ...task.parameters];
    const checker = argumentsSchema(inputs, declared);
    const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(checker, { io: 'input' }) as Record<string, unknown>;
    const outputs = Object.keys((task.name === null ? file.outputs : file.tasks?.[task.name]?.outputs) ?? {});
    const outputSchema = outputSchemaOf(outputs);
    tools.push({
      name: task.name ?? defaultToolName,
      task: task.name ?? undefined,
      description: task.description,
      inputSchema: { ...inputSchema, type: 'object' },
      ...(outputSchema && { outputSchema }),
      arguments: checker,
    });
  }
  return tools;
}

/**
 * A call's arguments as the `-i NAME=VALUE` entries `rho run` would parse: checked against the
 * task's inputs first (unknown names, wrong types and values outside the choices are refused),
 * then, like any `-i` value, parsed again by the run.
 */
export function parseToolArguments(tool: TaskTool, rawArguments: unknown): string[] {
  const parsed = tool.arguments.safeParse(rawArguments ?? {});
  if (!parsed.success) throw new HostError('usage', `arguments of ${tool.name}: ${describeIssues(parsed.error.issues)}`);
  return Object.entries(parsed.data).flatMap(([name, value]) =>
    Array.isArray(value) ? value.map((item) => `${name}=${String(item)}`) : value === undefined ? [] : [`${name}=${String(value)}`],
  );
}

/** The tool a call names, or the refusal that lists what the file offers. */
export function resolveTaskTool(tools: readonly TaskTool[], name: string): TaskTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool) return tool;
  throw new ToolError('unknown_tool', `no task ${JSON.stringify(name)} is served (tools: ${tools.map((candidate) => candidate.name).join(', ') || 'none'})`);
}
