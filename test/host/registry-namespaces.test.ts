import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HostError } from '../../src/host/errors.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';

const tool = (name: string, description = name) => defineTool({ name, description, schema: z.strictObject({}), run: async () => ({ text: name }) });
const never = new AbortController().signal;

describe('a namespace replaced as a whole (a server that listed its tools again)', () => {
  it('drops the tools it no longer lists, adds the new ones, and leaves other tools alone', () => {
    const registry = new ToolRegistry([tool('echo')]);
    registry.replaceNamespace('notes', [tool('notes.tag'), tool('notes.old')]);
    registry.replaceNamespace('notes', [tool('notes.tag', 'changed'), tool('notes.new')]);
    expect(registry.names().sort()).toEqual(['echo', 'notes.new', 'notes.tag']);
    expect(registry.get('notes.tag')!.description).toBe('changed');
  });

  it('keeps the tools as they were when the new ones cannot all be registered', () => {
    const registry = new ToolRegistry([tool('echo')]);
    registry.replaceNamespace('notes', [tool('notes.tag')]);
    expect(() => registry.replaceNamespace('notes', [tool('notes.new'), tool('echo')])).toThrow(HostError);
    expect(registry.names().sort()).toEqual(['echo', 'notes.tag']);
  });

  it('makes a call to one of its tools wait while the namespace is listed again, then get the new tool', async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace('notes', [tool('notes.tag')]);
    let listed!: () => void;
    registry.expect('notes', new Promise((resolve) => (listed = () => resolve(undefined))));
    const resolving = registry.resolve('notes.tag', never);
    registry.replaceNamespace('notes', [tool('notes.tag', 'changed')]);
    listed();
    const resolved = await resolving;
    expect(resolved).toMatchObject({ name: 'notes.tag', description: 'changed' });
    // Tools of other namespaces never wait.
    registry.replaceNamespace('web', [tool('web.get')]);
    registry.expect('notes', new Promise(() => {}));
    await expect(registry.resolve('web.get', never)).resolves.toMatchObject({ name: 'web.get' });
  });
});
