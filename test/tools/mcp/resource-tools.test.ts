import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { listOutput, maxResourceBytes, resourceOutput } from '../../../src/tools/mcp/resource-tools.js';

const tool = 'docs.-read-resource';

describe('a resource read as a step result', () => {
  it('keeps every content: text as the output, image and audio blobs as media, other blobs as resources; all of it untrusted', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
    const output = resourceOutput(tool, 'docs://guide', {
      contents: [
        { uri: 'docs://guide', mimeType: 'text/markdown', text: '# Guide' },
        { uri: 'docs://guide/logo', mimeType: 'IMAGE/PNG', blob: png },
        { uri: 'docs://guide/intro', mimeType: 'audio/mpeg', blob: 'AAAA' },
        { uri: 'docs://guide/data', blob: 'AQID' },
        { uri: 'docs://guide/notes', text: 'more' },
      ],
    });
    expect(output.text).toBe('# Guide\nmore');
    expect(output.images).toEqual([{ mediaType: 'image/png', data: png }]);
    expect(output.audio).toEqual([{ mediaType: 'audio/mpeg', data: 'AAAA' }]);
    expect(output.data).toEqual({
      text: '# Guide\nmore',
      resources: [
        { uri: 'docs://guide', mime_type: 'text/markdown', text: '# Guide' },
        { uri: 'docs://guide/data', blob: 'AQID' },
        { uri: 'docs://guide/notes', text: 'more' },
      ],
    });
    expect(output.metadata).toEqual({ untrusted_content: true });
  });

  it('refuses a blob that is not base64, as any server content', () => {
    expect(() => resourceOutput(tool, 'docs://x', { contents: [{ uri: 'docs://x', mimeType: 'image/png', blob: 'not base64!' }] })).toThrow(ToolError);
  });

  it('fails a resource whose contents are larger than rho reads, naming it', () => {
    const half = 'x'.repeat(maxResourceBytes / 2);
    const read = () =>
      resourceOutput(tool, 'docs://big', {
        contents: [
          { uri: 'docs://big', text: half },
          { uri: 'docs://big#2', text: `${half}!` },
        ],
      });
    expect(read).toThrow(`${tool}: resource docs://big has ${maxResourceBytes + 1} bytes of contents, more than the 8 MiB rho reads`);
    expect(resourceOutput(tool, 'docs://big', { contents: [{ uri: 'docs://big', text: half }] }).text).toHaveLength(half.length);
  });
});

describe('a resource listing as a step result', () => {
  it('shows one line per resource and says when the server listed more than rho took', () => {
    const output = listOutput('docs', {
      resources: [
        { uri: 'docs://guide', name: 'guide', mimeType: 'text/markdown', title: 'The guide' },
        { uri: 'docs://faq', name: 'faq' },
      ],
      complete: false,
    });
    expect(output.text).toBe('docs://guide  guide (text/markdown)\ndocs://faq  faq\n(MCP server docs lists more resources; the first 2 are shown)');
    expect(output.data).toEqual({
      resources: [
        { uri: 'docs://guide', name: 'guide', title: 'The guide', mime_type: 'text/markdown' },
        { uri: 'docs://faq', name: 'faq' },
      ],
      complete: false,
    });
  });
});
