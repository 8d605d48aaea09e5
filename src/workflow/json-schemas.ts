import { z } from 'zod';
import { runEventSchema } from '../host/events.js';
import { workflowSchema } from './schema.js';

const schemaBase = 'https://rho.invalid/schemas';

/** JSON Schema of the workflow file format, generated from the zod schema. */
export function workflowJsonSchema(): Record<string, unknown> {
  return {
    $id: `${schemaBase}/workflow.schema.json`,
    title: 'rho workflow',
    ...z.toJSONSchema(workflowSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }),
  };
}

/** JSON Schema of one NDJSON event line (`--output json`, `--events FILE`). */
export function eventLineJsonSchema(): Record<string, unknown> {
  const envelope = z.object({
    v: z.literal(1),
    seq: z.number().int().positive(),
    time: z.iso.datetime(),
    run_id: z.string(),
  });
  const lineOf = (event: z.ZodObject<z.ZodRawShape>) => {
    const { runId: _runIdIsInTheEnvelope, ...fields } = event.shape;
    return envelope.extend(fields).strict();
  };
  const options = runEventSchema.options as readonly z.ZodObject<z.ZodRawShape>[];
  const line = z.union(options.map(lineOf) as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);
  return {
    $id: `${schemaBase}/events.schema.json`,
    title: 'rho event line',
    ...z.toJSONSchema(line, { target: 'draft-2020-12', unrepresentable: 'any' }),
  };
}

export const jsonSchemas = { workflow: workflowJsonSchema, events: eventLineJsonSchema } as const;
export type SchemaName = keyof typeof jsonSchemas;
