import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolError } from '../../host/errors.js';
import { audioFromBase64, base64Bytes, imageFromBase64, resourceContent, type AudioContent, type ImageContent, type ResourceContent } from '../../host/content.js';
import type { Tool, ToolOutput } from '../../host/tool.js';
import { readOnlyServerTool, resourceData, serverOutput } from './mcp-tool.js';
import type { ServerConnection } from './server-connection.js';

/**
 * A server's resources as two tools of its namespace: `<server>.-read-resource` reads one by URI,
 * `<server>.-list-resources` lists them. A server's own tool names never start with `-` (rho
 * leaves such a tool out), so these names cannot clash with one of its tools. Each call asks
 * for `network_tool(<server>.-read-resource)` or `network_tool(<server>.-list-resources)`, as any
 * tool of the server does: granted by `network_tool(<server>.*)` or by name, denied otherwise.
 */

export const readResourceTool = '-read-resource';
export const listResourcesTool = '-list-resources';

/** Most bytes of contents one read keeps (text as UTF-8, blobs decoded); a larger resource fails the call. */
export const maxResourceBytes = 8 * 1024 * 1024;

const readArguments = z.strictObject({
  uri: z
    .string()
    .min(1)
    .max(8192)
    .refine((uri) => URL.canParse(uri), 'a URI with a scheme (file:///…, https://…, demo://…)')
    .describe('The URI of the resource, as the server lists it'),
});

const listArguments = z.strictObject({});

/** The resource tools of a server that offers resources; none for one that does not. */
export function resourceTools(connection: ServerConnection): Tool[] {
  if (!connection.offersResources) return [];
  const read = `${connection.name}.${readResourceTool}`;
  const list = `${connection.name}.${listResourcesTool}`;
  // Reading and listing change nothing on the server; what they bring is the server's to say.
  return [
    readOnlyServerTool(
      connection,
      { name: read, description: `Read a resource of MCP server ${connection.name} by its URI`, schema: readArguments, untrustedContent: true },
      async (args, ctx) => {
        const { uri } = args as z.infer<typeof readArguments>;
        return resourceOutput(read, uri, await connection.readResource(uri, ctx.signal));
      },
    ),
    readOnlyServerTool(
      connection,
      { name: list, description: `List the resources of MCP server ${connection.name}`, schema: listArguments, untrustedContent: true },
      async (_args, ctx) => listOutput(connection.name, await connection.listResources(ctx.signal)),
    ),
  ];
}

function contentBytes(content: ReadResourceResult['contents'][number]): number {
  return 'blob' in content && typeof content.blob === 'string' ? base64Bytes(content.blob) : Buffer.byteLength('text' in content ? String(content.text) : '');
}

/**
 * A read's contents as a step result: text contents joined as the output; blobs of an image or
 * audio type as the result's images and audio, the values `read_file` and tool calls give; other
 * blobs as resources with their MIME type. The data is `{text, resources}`, every content that is
 * not an image or audio clip by URI and MIME type. Contents past `maxResourceBytes` fail the call.
 */
export function resourceOutput(tool: string, uri: string, result: ReadResourceResult): ToolOutput {
  const total = result.contents.reduce((sum, content) => sum + contentBytes(content), 0);
  if (total > maxResourceBytes) {
    throw new ToolError('execution_failed', `${tool}: resource ${uri} has ${total} bytes of contents, more than the ${maxResourceBytes / 1024 / 1024} MiB rho reads`);
  }
  const texts: string[] = [];
  const images: ImageContent[] = [];
  const audio: AudioContent[] = [];
  const resources: ResourceContent[] = [];
  for (const content of result.contents) {
    const mediaType = content.mimeType?.toLowerCase();
    if ('blob' in content && typeof content.blob === 'string' && mediaType?.startsWith('image/')) images.push(imageFromBase64(mediaType, content.blob));
    else if ('blob' in content && typeof content.blob === 'string' && mediaType?.startsWith('audio/')) audio.push(audioFromBase64(mediaType, content.blob));
    else {
      const kept = resourceContent(content as Parameters<typeof resourceContent>[0]);
      if ('text' in kept) texts.push(kept.text);
      resources.push(kept);
    }
  }
  const text = texts.join('\n');
  return serverOutput(text, { text, resources: resources.map(resourceData) }, { images, audio, resources }, true);
}

/** A listing as a step result: one line per resource (URI, name, MIME type), and the list as data. */
export function listOutput(server: string, listed: { resources: Resource[]; complete: boolean }): ToolOutput {
  const lines = listed.resources.map((resource) => `${resource.uri}  ${resource.name}${resource.mimeType ? ` (${resource.mimeType})` : ''}`);
  if (!listed.complete) lines.push(`(MCP server ${server} lists more resources; the first ${listed.resources.length} are shown)`);
  const resources = listed.resources.map((resource) => ({
    uri: resource.uri,
    name: resource.name,
    ...(resource.title !== undefined && { title: resource.title }),
    ...(resource.description !== undefined && { description: resource.description }),
    ...(resource.mimeType !== undefined && { mime_type: resource.mimeType }),
  }));
  return { text: lines.join('\n'), data: { resources, complete: listed.complete }, metadata: { untrusted_content: true } };
}
