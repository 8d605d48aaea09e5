import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWatchTargets } from '../../src/cli/watch-targets.js';
import { parseRunChoices } from '../../src/workflow/run-choices.js';
import { temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe('watch targets', () => {
  it('start a run again when a file whose task a uses: step runs changes', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'main.yml': 'version: 1\nname: main\nsteps:\n  - { id: lint, uses: ./ci/checks.yml }\n',
      'ci/checks.yml': 'version: 1\nname: checks\nsteps:\n  - { id: run, tool: echo, sources: [src/**], with: { value: ok } }\n',
      'ci/unused.yml': 'version: 1\nname: unused\nsteps:\n  - { id: run, tool: echo, with: { value: ok } }\n',
    });
    const targets = await resolveWatchTargets(path.join(dir, 'main.yml'), parseRunChoices({}), dir);
    expect(targets.triggers(path.join(dir, 'ci/checks.yml'))).toBe(true);
    expect(targets.triggers(path.join(dir, 'ci/unused.yml'))).toBe(false);
    expect(targets.triggers(path.join(dir, 'src/a.ts'))).toBe(true);
  });
});
