import { appendFile, chmod, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { rewriteFile } from '../../../src/tools/files/checked-rewrite.js';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
});
afterEach(async () => {
  await box.cleanup();
});

const edit = (args: Record<string, unknown>, allow = ['read', 'write']) => invoke(box.host({ allow }), 'edit_file', args);

describe('edit_file', () => {
  it('applies exact replacements in order and reports a diff', async () => {
    await writeTree(box.ws, { 'app.ts': 'const a = 1;\nconst b = a;\n' });
    const result = await edit({
      path: 'app.ts',
      edits: [
        { old: 'const a = 1;', new: 'const a = 2;' },
        { old: 'a', new: 'x', all: true },
      ],
    });
    expect(result.output?.data).toEqual({ path: 'app.ts', replacements: 3 });
    expect(await readFile(path.join(box.ws, 'app.ts'), 'utf8')).toBe('const x = 2;\nconst b = x;\n');
    expect(result.output?.metadata?.['diff']).toContain('-const a = 1;\n-const b = a;\n+const x = 2;\n+const b = x;\n');
  });

  it('fails on a missing or ambiguous old text, naming the edit, and writes nothing', async () => {
    await writeTree(box.ws, { 'app.ts': 'x x\n' });
    const missing = await edit({
      path: 'app.ts',
      edits: [
        { old: 'x', new: 'y', all: true },
        { old: 'zzz', new: 'q' },
      ],
    });
    expect(missing.error?.kind).toBe('invalid_arguments');
    expect(missing.error?.message).toContain('edits.1.old: not found in app.ts');
    const ambiguous = await edit({ path: 'app.ts', edits: [{ old: 'x', new: 'y' }] });
    expect(ambiguous.error?.message).toContain('edits.0.old: found 2 times');
    expect(await readFile(path.join(box.ws, 'app.ts'), 'utf8')).toBe('x x\n');
    expect(await readdir(box.ws)).toEqual(['app.ts']);
  });

  it('keeps the permissions, and refuses binary and missing files', async () => {
    await writeTree(box.ws, { 'run.sh': 'echo hi\n', blob: Buffer.from([0, 1, 2]) });
    await chmod(path.join(box.ws, 'run.sh'), 0o755);
    await edit({ path: 'run.sh', edits: [{ old: 'hi', new: 'bye' }] });
    expect((await stat(path.join(box.ws, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect((await edit({ path: 'blob', edits: [{ old: 'a', new: 'b' }] })).error?.kind).toBe('unsupported');
    const missing = await edit({ path: 'nope.ts', edits: [{ old: 'a', new: 'b' }] });
    expect(missing.error?.kind).toBe('not_found');
    expect(missing.error?.message).toContain('use write_file');
  });

  it('needs read as well as write, since an edit reveals the old content', async () => {
    await writeTree(box.ws, { 'app.ts': 'a\n' });
    const result = await edit({ path: 'app.ts', edits: [{ old: 'a', new: 'b' }] }, ['write']);
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain('read request');
  });

  it('fails with conflict when the file changes between read and write, checked on the open file', async () => {
    await writeTree(box.ws, { 'shared.txt': 'base\n' });
    const target = path.join(box.ws, 'shared.txt');
    const resolved = await box.workspace.resolveForWrite('shared.txt');
    const error = await rewriteFile(resolved, 'shared.txt', 1024, async (before) => {
      await appendFile(target, 'someone else\n');
      return Buffer.concat([before, Buffer.from('mine\n')]);
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe('conflict');
    expect(await readFile(target, 'utf8')).toBe('base\nsomeone else\n');
    expect(await readdir(box.ws)).toEqual(['shared.txt']);
  });
});
