import { z } from 'zod';
import { describeIssues } from './arguments.js';
import { ToolError } from './errors.js';
import type { Tool, ToolOutput } from './tool.js';

const image = z.strictObject({ mediaType: z.string().regex(/^image\//, 'an image media type (image/*)'), data: z.base64() });
const audio = z.strictObject({ mediaType: z.string().regex(/^audio\//, 'an audio media type (audio/*)'), data: z.base64() });
const resource = z.union([
  z.strictObject({ uri: z.string(), mediaType: z.string().optional(), text: z.string() }),
  z.strictObject({ uri: z.string(), mediaType: z.string().optional(), blob: z.base64() }),
]);

/** The shape every tool's output has (`ToolOutput`). */
const toolOutputSchema = z.strictObject({
  text: z.string(),
  data: z.unknown().optional(),
  images: z.array(image).readonly().optional(),
  audio: z.array(audio).readonly().optional(),
  resources: z.array(resource).readonly().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? '…' : ''})`;
  return typeof value === 'object' ? 'an object' : `${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`;
}

/**
 * Checks what a tool returned against its contract: a `ToolOutput` (`{ text, data?, images?,
 * audio?, resources?, metadata? }`) whose `data` matches the tool's declared `data` schema, if any.
 * Anything else fails the call as `execution_failed`, naming the tool; the value is not passed on.
 */
export function checkToolOutput(tool: Tool, returned: unknown): ToolOutput {
  const fix = 'return { text: "..." } (with data, images, audio or resources as needed)';
  if (typeof returned !== 'object' || returned === null || Array.isArray(returned)) {
    throw new ToolError('execution_failed', `tool ${tool.name} returned ${described(returned)}, not a tool output; ${fix}`);
  }
  const shape = toolOutputSchema.safeParse(returned);
  if (!shape.success) throw new ToolError('execution_failed', `tool ${tool.name} returned an output of the wrong shape: ${describeIssues(shape.error.issues)}; ${fix}`);
  if (tool.data) {
    const data = tool.data.safeParse((returned as ToolOutput).data);
    if (!data.success)
      throw new ToolError('execution_failed', `tool ${tool.name} returned data that does not match the data schema it declares: ${describeIssues(data.error.issues)}`);
  }
  return returned as ToolOutput;
}
