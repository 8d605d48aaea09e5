import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../../src/host/tool.js';
import { HostHarness, hostAndServerPerTest } from '../host-harness.js';
import { startServer } from './servers.js';

/** A tool whose destination is configured inside it (like a search backend): it asks for network_tool, not a host. */
const searchTool = defineTool({
  name: 'search',
  description: 'test tool with a managed destination',
  classes: ['network_tool'],
  schema: z.strictObject({}),
  async run(_args, ctx) {
    await ctx.authorize({ class: 'network_tool', tool: 'search' });
    return { text: 'searched' };
  },
});

const current = hostAndServerPerTest();

describe('network_tool grants', () => {
  it('allow a tool-managed destination by tool name', async () => {
    current.harness = await HostHarness.create({ allow: ['network_tool(search)'], tools: [searchTool] });
    expect((await current.harness!.invoke('search', {})).status).toBe('success');
  });

  it('are not granted by host rules, and name the rule that would grant them', async () => {
    current.harness = await HostHarness.create({ allow: ['network', 'network(example.org)', 'network_tool(other)'], tools: [searchTool] });
    const result = await current.harness!.invoke('search', {});
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toContain('network_tool(search)');
  });

  it('do not grant requests to hosts', async () => {
    current.api = await startServer((_request, response) => response.end('ok'));
    current.harness = await HostHarness.create({ allow: ['network_tool', 'network_tool(http_request)'], tools: [searchTool] });
    const result = await current.harness!.invoke('http_request', { url: current.api!.origin });
    expect(result.error?.kind).toBe('policy_denied');
    expect(current.api!.requests).toHaveLength(0);
    expect((await current.harness!.invoke('search', {})).status).toBe('success');
  });
});
