// An example MCP server for workflows/mcp.yml, written with the MCP SDK's server classes.
// rho starts it over stdio (a `process` request the workflow's policy must allow), lists its
// tools as `pad.<tool>`, and stops it when the run ends.
//
// The annotations are hints for scheduling and display only: `readOnlyHint: true` lets rho run
// the tool alongside other read-only calls of this server; `openWorldHint: false` says results
// come from this server alone, not from the outside world. Neither grants anything: every call
// still needs `network_tool(pad.<tool>)` from the policy.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes = [];
const server = new McpServer({ name: 'scratchpad', version: '1.0.0' });

server.registerTool(
  'add',
  {
    description: 'Add a note to the scratchpad (kept while the server runs)',
    inputSchema: { text: z.string().min(1).max(1000).describe('The note') },
  },
  async ({ text }) => {
    notes.push(text);
    return { content: [{ type: 'text', text: `note ${notes.length} added` }], structuredContent: { count: notes.length } };
  },
);

server.registerTool(
  'list',
  {
    description: 'List the notes, optionally only those containing a word',
    inputSchema: { containing: z.string().optional().describe('Only notes that contain this text') },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ containing }) => {
    const found = containing === undefined ? notes : notes.filter((note) => note.includes(containing));
    return { content: [{ type: 'text', text: found.join('\n') }], structuredContent: { notes: found } };
  },
);

server.registerTool(
  'slugify',
  {
    description: 'Turn a title into a URL slug',
    inputSchema: { title: z.string().max(1000) },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ title }) => {
    const slug = title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    return { content: [{ type: 'text', text: slug }], structuredContent: { slug } };
  },
);

await server.connect(new StdioServerTransport());
