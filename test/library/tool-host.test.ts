import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTools, type ApprovalAnswer } from '../../src/index.js';
import { workspacePerTest } from './support.js';

const space = workspacePerTest();

describe('the provider-free ToolHost', () => {
  it('a call of a tool nobody registered is a typed failure, not an exception', async () => {
    const host = await space.host({ tools: builtinTools() });
    expect(await host.invoke({ id: 'u', tool: 'teleport', args: {} })).toMatchObject({ status: 'failure', error: { kind: 'unknown_tool' } });
  });

  it('leaving the event stream of an unfinished run early cancels its call', async () => {
    const host = await space.host({ tools: builtinTools() });
    const run = host.start({ id: 'q', tool: 'questionnaire', args: { questions: [{ id: 'go', question: 'Go?', type: 'confirm' }] } });
    for await (const event of run.events()) if (event.type === 'input_requested') break;
    expect((await run.result).status).toBe('cancelled');
  });

  it('an approval for the run stays in its host: another host asks again', async () => {
    await writeFile(path.join(space.dir, 'a.txt'), 'a');
    const asked: string[] = [];
    const approver = async (): Promise<ApprovalAnswer> => (asked.push('asked'), 'allow_run');
    const first = await space.host({ tools: builtinTools(), policy: { ask: ['read(a.txt)'] }, approver });
    const second = await space.host({ tools: builtinTools(), policy: { ask: ['read(a.txt)'] }, approver });
    await first.invoke({ id: '1', tool: 'read_file', args: { path: 'a.txt' } });
    await first.invoke({ id: '2', tool: 'read_file', args: { path: 'a.txt' } });
    await second.invoke({ id: '3', tool: 'read_file', args: { path: 'a.txt' } });
    expect(asked).toHaveLength(2);
  });
});
