import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HostError, ToolError } from '../../host/errors.js';
import { opaqueKey, shared } from '../../host/resources.js';
import type { z } from 'zod';
import { describeIssues } from '../../host/arguments.js';
import { audioFromBase64, imageFromBase64, resourceContent, type AudioContent, type ImageContent, type ResourceContent } from '../../host/content.js';
import { maxDescriptionLength } from '../../host/tool-declaration.js';
import { defineBuiltinTool, type ExecuteContext, type Tool, type ToolOutput } from '../../host/tool.js';
import { argumentSchemaFromJsonSchema, outputSchemaFromJsonSchema, parseArgumentsJsonSchema, parseObjectJsonSchema, type JsonSchemaObject } from './argument-schema.js';
import type { ServerConnection } from './server-connection.js';

/** MCP tool names (the protocol allows letters, digits, `_`, `-` and `.`, up to 128 characters). */
const toolNamePattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** What rho takes from one entry of a server's `tools/list`, checked. */
export interface McpToolDeclaration {
  /** The name on the server. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The schema the tool's `structuredContent` must match, when it declares one. */
  outputSchema?: JsonSchemaObject;
  /** `readOnlyHint: true`: the server says the tool changes nothing. Used for scheduling only. */
  readOnly: boolean;
  /** `openWorldHint` (true unless the server says false): results may carry outside content. */
  openWorld: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks one untrusted tool declaration from a server: a name, a string description (or none)
 * and an object JSON Schema. Annotations are hints: only a literal `true`/`false` counts, and
 * nothing in them can grant a capability.
 */
export function parseMcpToolDeclaration(raw: unknown): McpToolDeclaration {
  if (!isRecord(raw)) throw new HostError('invalid_tool', 'the declaration is not an object');
  const { name, description, inputSchema, outputSchema, annotations } = raw;
  if (typeof name !== 'string' || !toolNamePattern.test(name)) {
    throw new HostError('invalid_tool', `the name ${JSON.stringify(name)} is not a tool name (letters, digits, _, - and ., at most 128)`);
  }
  if (description !== undefined && typeof description !== 'string') throw new HostError('invalid_tool', `tool ${name}: the description is not a string`);
  if (description !== undefined && description.length > maxDescriptionLength) {
    throw new HostError('invalid_tool', `tool ${name}: the description is longer than ${maxDescriptionLength} characters`);
  }
  let schema: Record<string, unknown>;
  try {
    schema = parseArgumentsJsonSchema(inputSchema);
  } catch (cause) {
    throw new HostError('invalid_tool', `tool ${name}: ${(cause as Error).message}`, { cause });
  }
  let output: JsonSchemaObject | undefined;
  try {
    output = outputSchema === undefined ? undefined : parseObjectJsonSchema(outputSchema, 'structured results');
  } catch (cause) {
    throw new HostError('invalid_tool', `tool ${name}: outputSchema: ${(cause as Error).message}`, { cause });
  }
  const hints = isRecord(annotations) ? annotations : {};
  return {
    name,
    description: description ?? '',
    inputSchema: schema,
    ...(output && { outputSchema: output }),
    readOnly: hints.readOnlyHint === true,
    openWorld: hints.openWorldHint !== false,
  };
}

/**
 * A server tool registered as `<server>.<tool>`. Every call asks for `network_tool(<server>.<tool>)`:
 * rho cannot see what a server does, so each of its tools is granted by name, through the same
 * policy, hooks and approvals as any request. A read-only tool is resource-aware with shared
 * access to the server (it may overlap other read-only calls); any other tool is exclusive.
 */
export function mcpTool(connection: ServerConnection, declaration: McpToolDeclaration): Tool {
  const name = `${connection.name}.${declaration.name}`;
  const description = declaration.description || `Tool ${declaration.name} of MCP server ${connection.name}`;
  const schema = argumentSchemaFromJsonSchema(declaration.inputSchema);
  const outputSchema = declaration.outputSchema && outputSchemaFromJsonSchema(declaration.outputSchema);
  const call = async (args: unknown, ctx: ExecuteContext): Promise<ToolOutput> => {
    const result = await connection.callTool(declaration.name, args as Record<string, unknown>, {
      signal: ctx.signal,
      stepId: ctx.stepId,
      // A server's questions go the questionnaire's way: a form, scripted answers, or a decline.
      ask: (input) => ctx.ask(input),
      notice: (message) => ctx.progress({ message }),
      onProgress: (message) => ctx.progress({ message }),
    });
    return toolOutput(name, result, declaration.openWorld, outputSchema);
  };
  const common = {
    name,
    description,
    schema,
    // What `rho tools --json` shows as the data's schema: the server's own, when it declares one.
    ...(outputSchema && { data: outputSchema }),
    untrustedContent: declaration.openWorld,
  };
  if (declaration.readOnly) return readOnlyServerTool(connection, common, call);
  return defineBuiltinTool({
    ...common,
    origin: 'mcp',
    classes: ['network_tool'],
    executionPolicy: 'exclusive',
    async run(args, ctx) {
      await ctx.authorize({ class: 'network_tool', tool: name });
      return call(args, ctx);
    },
  });
}

/** What a tool of a server is, beside how it runs. */
export interface ServerToolDefinition {
  name: string;
  description: string;
  schema: z.ZodType;
  data?: z.ZodType;
  untrustedContent: boolean;
}

/**
 * A tool of a server that changes nothing there: it asks for `network_tool(<name>)` and is
 * resource-aware with shared access to the server, so it may overlap other such calls.
 */
export function readOnlyServerTool(connection: ServerConnection, definition: ServerToolDefinition, call: (args: unknown, ctx: ExecuteContext) => Promise<ToolOutput>): Tool {
  return defineBuiltinTool({
    ...definition,
    origin: 'mcp',
    classes: ['network_tool'],
    executionPolicy: 'resource-aware',
    async prepare(args) {
      return {
        requests: [{ class: 'network_tool', tool: definition.name }],
        resources: [shared(opaqueKey('mcp', connection.name))],
        summary: definition.name,
        execute: (ctx) => call(args, ctx),
      };
    },
  });
}

/**
 * A server's answer as a step result, every content block kept: text blocks (and resource
 * links, by URI) joined as the output, images and audio as the result's images and audio,
 * embedded resources (text or blob) as its resources with their MIME type. The data is
 * `structuredContent` when the server sent it — checked against the tool's `outputSchema` when
 * it declared one, which then makes it required; else, when there are resources,
 * `{text, resources}`; else the text. `isError` makes the call fail.
 */
export function toolOutput(name: string, result: CallToolResult, openWorld: boolean, outputSchema?: z.ZodType): ToolOutput {
  // The server's own words come first: a call it reports as failed fails with them, whatever else it sent.
  const text = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : block.type === 'resource_link' ? [block.uri] : [])).join('\n');
  if (result.isError) throw new ToolError('execution_failed', `${name} reported an error: ${text || '(no message)'}`);
  if (outputSchema) validateStructuredContent(name, result.structuredContent, outputSchema);
  const images: ImageContent[] = [];
  const audio: AudioContent[] = [];
  const resources: ResourceContent[] = [];
  for (const block of result.content) {
    if (block.type === 'image') images.push(imageFromBase64(block.mimeType, block.data));
    else if (block.type === 'audio') audio.push(audioFromBase64(block.mimeType, block.data));
    else if (block.type === 'resource') resources.push(resourceContent(block.resource));
  }
  const data = result.structuredContent ?? (resources.length > 0 ? { text, resources: resources.map(resourceData) } : text);
  return serverOutput(text, data, { images, audio, resources }, openWorld);
}

/** What a server sent as a step result: its text and data, with the images, audio and resources when there are any. */
export function serverOutput(
  text: string,
  data: unknown,
  contents: { images: ImageContent[]; audio: AudioContent[]; resources: ResourceContent[] },
  untrusted: boolean,
): ToolOutput {
  const { images, audio, resources } = contents;
  return {
    text,
    data,
    ...(images.length > 0 && { images }),
    ...(audio.length > 0 && { audio }),
    ...(resources.length > 0 && { resources }),
    ...(untrusted && { metadata: { untrusted_content: true } }),
  };
}

/** Fails the call, naming each field, when structured content does not match the tool's declared output schema. */
function validateStructuredContent(name: string, structured: unknown, schema: z.ZodType): void {
  if (structured === undefined) {
    throw new ToolError('execution_failed', `${name} declares an outputSchema but sent no structuredContent`);
  }
  const checked = schema.safeParse(structured);
  if (!checked.success) {
    throw new ToolError('execution_failed', `${name} sent structuredContent that does not match its outputSchema: ${describeIssues(checked.error.issues)}`);
  }
}

/** A resource as step data (what expressions read): snake_case like the rest of rho's data. */
export function resourceData(resource: ResourceContent): Record<string, string> {
  return {
    uri: resource.uri,
    ...(resource.mediaType !== undefined && { mime_type: resource.mediaType }),
    ...('blob' in resource ? { blob: resource.blob } : { text: resource.text }),
  };
}
