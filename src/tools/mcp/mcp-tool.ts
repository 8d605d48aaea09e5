import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NetworkToolRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { opaqueKey, shared } from '../../host/resources.js';
import { imageFromBase64, resourceContent, type ImageContent, type ResourceContent } from '../../host/content.js';
import { maxDescriptionLength } from '../../host/tool-declaration.js';
import { defineBuiltinTool, type ExecuteContext, type Tool, type ToolOutput } from '../../host/tool.js';
import { argumentSchemaFromJsonSchema, parseArgumentsJsonSchema } from './argument-schema.js';
import type { ServerConnection } from './server-connection.js';

/** MCP tool names (the protocol allows letters, digits, `_`, `-` and `.`, up to 128 characters). */
const toolNamePattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** What rho takes from one entry of a server's `tools/list`, checked. */
export interface McpToolDeclaration {
  /** The name on the server. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
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
  if (!isRecord(raw)) throw new Error('the declaration is not an object');
  const { name, description, inputSchema, annotations } = raw;
  if (typeof name !== 'string' || !toolNamePattern.test(name)) {
    throw new Error(`the name ${JSON.stringify(name)} is not a tool name (letters, digits, _, - and ., at most 128)`);
  }
  if (description !== undefined && typeof description !== 'string') throw new Error(`tool ${name}: the description is not a string`);
  if (description !== undefined && description.length > maxDescriptionLength) {
    throw new Error(`tool ${name}: the description is longer than ${maxDescriptionLength} characters`);
  }
  let schema: Record<string, unknown>;
  try {
    schema = parseArgumentsJsonSchema(inputSchema);
  } catch (cause) {
    throw new Error(`tool ${name}: ${(cause as Error).message}`, { cause });
  }
  const hints = isRecord(annotations) ? annotations : {};
  return {
    name,
    description: description ?? '',
    inputSchema: schema,
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
  const request = (): NetworkToolRequest => ({ class: 'network_tool', tool: name });
  const call = async (args: unknown, ctx: ExecuteContext): Promise<ToolOutput> => {
    const result = await connection.callTool(declaration.name, args as Record<string, unknown>, {
      signal: ctx.signal,
      stepId: ctx.stepId,
      // A server's questions go the questionnaire's way: a form, scripted answers, or a decline.
      ask: (input) => ctx.ask(input),
      notice: (message) => ctx.progress({ message }),
      onProgress: (message) => ctx.progress({ message }),
    });
    return toolOutput(name, result, declaration.openWorld);
  };
  const common = { name, description, schema, origin: 'mcp' as const, classes: ['network_tool' as const], untrustedContent: declaration.openWorld };
  if (declaration.readOnly) {
    return defineBuiltinTool({
      ...common,
      executionPolicy: 'resource-aware',
      async prepare(args) {
        return {
          requests: [request()],
          resources: [shared(opaqueKey('mcp', connection.name))],
          summary: name,
          execute: (ctx) => call(args, ctx),
        };
      },
    });
  }
  return defineBuiltinTool({
    ...common,
    executionPolicy: 'exclusive',
    async run(args, ctx) {
      await ctx.authorize(request());
      return call(args, ctx);
    },
  });
}

/**
 * A server's answer as a step result, every content block kept: text blocks (and resource
 * links, by URI) joined as the output, images as the result's images, embedded resources (text
 * or blob) as its resources with their MIME type. The data is `structuredContent` when the
 * server sent it; else, when there are resources, `{text, resources}`; else the text.
 * `isError` makes the call fail.
 */
export function toolOutput(name: string, result: CallToolResult, openWorld: boolean): ToolOutput {
  const texts: string[] = [];
  const images: ImageContent[] = [];
  const resources: ResourceContent[] = [];
  for (const block of result.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'image') images.push(imageFromBase64(block.mimeType, block.data));
    else if (block.type === 'resource') resources.push(resourceContent(block.resource));
    else if (block.type === 'resource_link') texts.push(block.uri);
  }
  const text = texts.join('\n');
  if (result.isError) throw new ToolError('execution_failed', `${name} reported an error: ${text || '(no message)'}`);
  const data = result.structuredContent ?? (resources.length > 0 ? { text, resources: resources.map(resourceData) } : text);
  return {
    text,
    data,
    ...(images.length > 0 && { images }),
    ...(resources.length > 0 && { resources }),
    ...(openWorld && { metadata: { untrusted_content: true } }),
  };
}

/** A resource as step data (what expressions read): snake_case like the rest of rho's data. */
function resourceData(resource: ResourceContent): Record<string, string> {
  return {
    uri: resource.uri,
    ...(resource.mediaType !== undefined && { mime_type: resource.mediaType }),
    ...('blob' in resource ? { blob: resource.blob } : { text: resource.text }),
  };
}
