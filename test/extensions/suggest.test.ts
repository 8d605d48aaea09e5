import { describe, expect, it } from 'vitest';
import { closestToolNames, isPendingServerTool } from '../../src/workflow/suggest.js';

const registered = ['echo', 'read_file', 'write_file', 'search_files', 'exec', 'process_start', 'process_stop', 'word_count', 'pad.add', 'pad.list', 'pad.slugify'];

describe('suggestions for unknown tools (built-in, module and MCP names)', () => {
  it.each([
    ['readFile', ['read_file']],
    ['read-file', ['read_file']],
    ['file_read', ['read_file']],
    ['exex', ['exec']],
    ['wordcount', ['word_count']],
    ['pad.lsit', ['pad.list']],
    ['pda.list', ['pad.list']],
    ['slugify', ['pad.slugify']],
    ['teleport', []],
  ])('suggests for %s: %j', (unknown, expected) => {
    expect(closestToolNames(unknown, registered)).toEqual(expected);
  });

  it('ranks the closest first and caps the list', () => {
    expect(closestToolNames('proces_stop', registered)).toEqual(['process_stop', 'process_start']);
  });

  it('guesses the tool under a declared server whose tools are not listed yet', () => {
    expect(closestToolNames('note.search', registered, ['notes'])).toEqual(['notes.search']);
    expect(closestToolNames('gh.search', registered, ['notes'])).toEqual([]);
  });

  it('recognizes steps of declared servers only with a namespace and a tool', () => {
    expect(isPendingServerTool('notes.search', ['notes'])).toBe(true);
    expect(isPendingServerTool('notes.', ['notes'])).toBe(false);
    expect(isPendingServerTool('notes', ['notes'])).toBe(false);
    expect(isPendingServerTool('other.search', ['notes'])).toBe(false);
  });
});
