import { describe, expect, it } from 'vitest';
import { serverLogLine } from '../../../src/tools/mcp/server-log.js';

describe('a server log message as a step line', () => {
  it('names the server, the level and the logger, and leaves debug out', () => {
    expect(serverLogLine('db', { level: 'error', logger: 'pool', data: 'connection lost' })).toBe('MCP server db log (error, pool): connection lost');
    expect(serverLogLine('db', { level: 'notice', data: 'ready' })).toBe('MCP server db log (notice): ready');
    expect(serverLogLine('db', { level: 'debug', data: 'query 1' })).toBeUndefined();
  });

  it('writes structured data as JSON, and cuts a long message with a mark', () => {
    expect(serverLogLine('db', { level: 'info', data: { rows: 3 } })).toBe('MCP server db log (info): {"rows":3}');
    const long = serverLogLine('db', { level: 'info', data: 'x'.repeat(5000) })!;
    expect(long.endsWith('… (cut)')).toBe(true);
    expect(long.length).toBeLessThan(2100);
  });
});
