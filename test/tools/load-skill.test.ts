import { renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PreToolGate } from '../../src/host/gates.js';
import { maxSkillBytes } from '../../src/tools/load-skill.js';
import { dataOf, HostHarness } from './host-harness.js';

let harness: HostHarness | undefined;
const extraDirs: string[] = [];
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
  await Promise.all(extraDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function withSkill(allow: readonly string[], name = 'deploy', content = '# Deploy\nSteps.'): Promise<HostHarness> {
  harness = await HostHarness.create({ allow });
  await write(`.agents/skills/${name}/SKILL.md`, content);
  return harness;
}

async function write(relative: string, content: string): Promise<void> {
  const target = path.join(harness!.root, relative);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, content);
}

describe('load_skill', () => {
  it('reads .agents/skills/<name>/SKILL.md with a skill grant', async () => {
    await withSkill(['skill(deploy)']);
    const result = await harness!.invoke('load_skill', { name: 'deploy' });
    expect(dataOf(result)).toEqual({ name: 'deploy', content: '# Deploy\nSteps.' });
    const decisions = harness!.events.filter((event) => event.type === 'approval_decided');
    expect(decisions.map((event) => event.type === 'approval_decided' && event.class)).toEqual(['skill']);
  });

  it('needs the skill class: read rules do not grant it, nor does another skill name', async () => {
    await withSkill(['read', 'skill(other)']);
    const result = await harness!.invoke('load_skill', { name: 'deploy' });
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toMatch(/--allow '?skill\(deploy\)/);
  });

  it('does not let a skill grant read the same file or discover instructions', async () => {
    await withSkill(['skill']);
    await write('AGENTS.md', 'rules');
    const read = await harness!.invoke('read_file', { path: '.agents/skills/deploy/SKILL.md' });
    expect(read.error?.kind).toBe('policy_denied');
    const discover = await harness!.invoke('discover_instructions', {});
    expect(discover.error?.kind).toBe('policy_denied');
  });

  it.each(['../deploy', 'Deploy', '-deploy', 'a/b', 'a.b', '', 'x'.repeat(65), '.hidden'])('refuses the name %j', async (name) => {
    harness = await HostHarness.create({ allow: ['skill'] });
    const result = await harness.invoke('load_skill', { name });
    expect(result.error?.kind).toBe('invalid_arguments');
  });

  it('says which file is missing', async () => {
    harness = await HostHarness.create({ allow: ['skill'] });
    const result = await harness.invoke('load_skill', { name: 'absent' });
    expect(result.error?.kind).toBe('not_found');
    expect(result.error?.message).toBe('no skill named absent: .agents/skills/absent/SKILL.md does not exist in the workspace');
  });

  it('refuses a skill directory or file that is a symlink to somewhere else in the workspace', async () => {
    harness = await HostHarness.create({ allow: ['skill'] });
    await write('private/SKILL.md', 'not a skill');
    await write('.env', 'TOKEN=1');
    await mkdir(path.join(harness.root, '.agents/skills/linked-file'), { recursive: true });
    await symlink(path.join(harness.root, '.env'), path.join(harness.root, '.agents/skills/linked-file/SKILL.md'));
    await symlink(path.join(harness.root, 'private'), path.join(harness.root, '.agents/skills/linked-dir'));
    for (const name of ['linked-file', 'linked-dir']) {
      const result = await harness.invoke('load_skill', { name });
      expect(result.error?.kind).toBe('path_refused');
      expect(result.error?.message).toContain('leads elsewhere through a symlink');
    }
  });

  it('refuses a skill that links outside the workspace', async () => {
    harness = await HostHarness.create({ allow: ['skill', 'outside'] });
    const outside = await mkdtemp(path.join(os.tmpdir(), 'rho-outside-'));
    extraDirs.push(outside);
    await writeFile(path.join(outside, 'SKILL.md'), 'outside');
    await mkdir(path.join(harness.root, '.agents/skills'), { recursive: true });
    await symlink(outside, path.join(harness.root, '.agents/skills/escape'));
    const result = await harness.invoke('load_skill', { name: 'escape' });
    expect(result.error?.kind).toBe('path_refused');
  });

  it('revalidates the path after authorization: a file swapped in between is refused', async () => {
    // The file is swapped while the call is authorized (a gate runs), after it was prepared.
    const swap: PreToolGate = {
      name: 'swapper',
      evaluate: async () => {
        const skillFile = path.join(harness!.root, '.agents/skills/deploy/SKILL.md');
        renameSync(skillFile, `${skillFile}.old`);
        symlinkSync(path.join(harness!.root, 'secret.txt'), skillFile);
        return { decision: 'continue' };
      },
    };
    harness = await HostHarness.create({ allow: ['skill(deploy)'], gates: [swap] });
    await write('.agents/skills/deploy/SKILL.md', '# Deploy\nSteps.');
    await write('secret.txt', 'do not read');
    const result = await harness.host.invoke({ id: 'swap', tool: 'load_skill', args: { name: 'deploy' } });
    expect(result.error?.kind).toBe('path_refused');
    expect(JSON.stringify(result)).not.toContain('do not read');
  });

  it('refuses a skill file over the size limit', async () => {
    await withSkill(['skill'], 'huge', 'x'.repeat(maxSkillBytes + 1));
    const result = await harness!.invoke('load_skill', { name: 'huge' });
    expect(result.error?.kind).toBe('execution_failed');
    expect(result.error?.message).toContain(`over ${maxSkillBytes} bytes`);
  });
});
