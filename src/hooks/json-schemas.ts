import { z } from 'zod';
import { hookEnvelopeSchema, hookSchemaVersion } from '../host/hooks/envelope.js';
import { gateAnswerSchema } from './gate-answer.js';

export const hookSchemaNames = ['envelope', 'gate-answer'] as const;
export type HookSchemaName = (typeof hookSchemaNames)[number];

/** The files the package ships, generated from the zod schemas (a test keeps them in step). */
export const hookSchemaFiles: Readonly<Record<HookSchemaName, string>> = {
  envelope: 'schemas/hook-envelope.schema.json',
  'gate-answer': 'schemas/gate-answer.schema.json',
};

/** JSON Schema of what a hook reads on stdin (`envelope`) or a gate prints on stdout (`gate-answer`). */
export function hookJsonSchema(name: HookSchemaName): Record<string, unknown> {
  if (name === 'envelope') {
    return {
      title: `rho hook envelope (schema_version ${hookSchemaVersion})`,
      description: 'One event, written as JSON to a hook program on stdin.',
      ...z.toJSONSchema(hookEnvelopeSchema, { io: 'output' }),
    };
  }
  return {
    title: 'rho gate answer',
    description: 'What a [[pre_tool_use]] gate prints on stdout. Anything else denies the call unless the gate sets on_error = "continue".',
    ...z.toJSONSchema(gateAnswerSchema, { io: 'input' }),
  };
}

/** The text of a schema file: stable formatting so the shipped files can be compared byte for byte. */
export function hookJsonSchemaText(name: HookSchemaName): string {
  return `${JSON.stringify(hookJsonSchema(name), null, 2)}\n`;
}
