import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeAll(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, { 'a.txt': 'a\n' });
});
afterAll(async () => {
  await box.cleanup();
});

const long = (length: number) => 'x'.repeat(length);

/** tool, arguments, the field the refusal must name */
const hostile: [string, unknown, string][] = [
  ['read_file', { path: 'a.txt', sneaky: true }, 'sneaky'],
  ['read_file', { path: 42 }, 'path'],
  ['read_file', { path: long(4097) }, 'path'],
  ['read_file', { path: 'a.txt', offset: 0 }, 'offset'],
  ['read_file', { path: 'a.txt', limit: 1.5 }, 'limit'],
  ['read_file', { path: 'a.txt', max_bytes: 10 * 1024 * 1024 + 1 }, 'max_bytes'],
  ['read_file', {}, 'path'],
  ['write_file', { path: 'a.txt', content: 'x', mode: 'truncate' }, 'mode'],
  ['write_file', { path: 'a.txt', content: { evil: true } }, 'content'],
  ['write_file', { path: 'a.txt', content: long(1024 * 1024 + 1) }, 'content'],
  ['write_file', { path: 'a.txt', content: 'x', create_dirs: 'yes' }, 'create_dirs'],
  ['edit_file', { path: 'a.txt', edits: [] }, 'edits'],
  ['edit_file', { path: 'a.txt', edits: Array.from({ length: 101 }, () => ({ old: 'a', new: 'b' })) }, 'edits'],
  ['edit_file', { path: 'a.txt', edits: [{ old: '', new: 'b' }] }, 'edits.0.old'],
  ['edit_file', { path: 'a.txt', edits: [{ old: 'a', new: 'b', regex: true }] }, 'regex'],
  ['list_files', { max_results: 10_001 }, 'max_results'],
  ['list_files', { glob: long(1001) }, 'glob'],
  ['list_files', { path: ['a'] }, 'path'],
  ['search_files', { pattern: long(1001) }, 'pattern'],
  ['search_files', { pattern: 'a', max_matches: 1e9 }, 'max_matches'],
  ['search_files', { pattern: '[' }, 'pattern'],
  ['search_files', { pattern: 'a', case_insensitive: 1 }, 'case_insensitive'],
];

describe('hostile arguments are refused while preparing, naming the field', () => {
  it.each(hostile)('%s %j names %s', async (tool, args, field) => {
    const events: string[] = [];
    const host = box.host({ allow: ['read', 'write'] });
    host.subscribe((event) => events.push(event.type));
    const result = await invoke(host, tool, args);
    await host.flushEvents();
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain(field);
    // Refused before authorization: no decision was asked for, nothing started.
    expect(events).not.toContain('approval_decided');
    expect(events).not.toContain('step_started');
  });
});
