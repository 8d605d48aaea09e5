import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../src/host/fingerprint.js';
import type { ResolvedPath } from '../../src/host/workspace.js';
import { makeSandbox, networkRequest, processRequest, shellRequest, type Sandbox } from './approval-fixtures.js';
import { capabilityRequest, changeableLocations, withChange } from './request-arbitraries.js';

let box: Sandbox;
let paths: ResolvedPath[];
beforeAll(async () => {
  box = await makeSandbox();
  paths = [
    await box.workspace.resolveForRead('src/a.ts'),
    await box.workspace.resolveForRead('./src/a.ts'),
    await box.workspace.resolveForRead('docs/env-link'),
    await box.workspace.resolveForWrite('dist/new.js'),
    await box.workspace.resolveForRead(`${box.granted}/c.txt`),
  ];
});
afterAll(() => box.cleanup());

describe('requestFingerprint', () => {
  it('is the same for equal facts, whatever the key order or the object identity', async () => {
    const a = processRequest();
    const { argv, cwd, ...rest } = processRequest();
    expect(requestFingerprint({ argv, ...rest, cwd }, 'exec')).toBe(requestFingerprint(a, 'exec'));
    const again = await box.workspace.resolveForRead('src/a.ts');
    expect(requestFingerprint({ class: 'read', path: again, target: 'file' }, 'read_file')).toBe(
      requestFingerprint({ class: 'read', path: paths[0]!, target: 'file' }, 'read_file'),
    );
  });

  it.each([
    ['cwd', { cwd: '/w/sub' }],
    ['executable as written', { executable: { requested: '/usr/bin/npm', resolved: '/usr/bin/npm', lookup: 'exact' as const } }],
    ['resolved executable', { executable: { requested: 'npm', resolved: '/opt/npm', lookup: 'path_search' as const } }],
    ['argv', { argv: ['publish', '--tag', 'latest'] }],
    ['argv length', { argv: ['publish', '--tag', 'next', '--force'] }],
    ['env mode', { envMode: { mode: 'empty' as const } }],
    ['env mode names', { envMode: { mode: 'inherit_except' as const, names: ['HOME'] } }],
    ['env names', { env: { NODE_ENV: 'production' } }],
    ['output limit', { outputLimitBytes: 2 }],
    ['wall limit', { wallLimitMs: 31_000 }],
  ])('changes when the %s changes', (_, change) => {
    expect(requestFingerprint(processRequest(change), 'exec')).not.toBe(requestFingerprint(processRequest(), 'exec'));
  });

  it('changes when an environment value changes and the names stay the same', () => {
    const production = processRequest({ env: { GIT_CONFIG_COUNT: '1', NODE_ENV: 'production' } });
    const development = processRequest({ env: { GIT_CONFIG_COUNT: '1', NODE_ENV: 'development' } });
    expect(requestFingerprint(production, 'exec')).not.toBe(requestFingerprint(development, 'exec'));
    expect(requestFingerprint(production, 'exec')).toBe(requestFingerprint(processRequest({ env: { NODE_ENV: 'production', GIT_CONFIG_COUNT: '1' } }), 'exec'));
  });

  it('changes with the class, the tool, the URL, the method, the skill and the path', () => {
    const process = processRequest();
    const { class: _class, invocation: _invocation, ...facts } = process;
    expect(requestFingerprint(shellRequest({ ...facts, script: '' }), 'exec')).not.toBe(requestFingerprint(process, 'exec'));
    expect(requestFingerprint(process, 'process_start')).not.toBe(requestFingerprint(process, 'exec'));
    expect(requestFingerprint(networkRequest('https://example.org/a'), 'h')).not.toBe(requestFingerprint(networkRequest('https://example.org/b'), 'h'));
    expect(requestFingerprint(networkRequest('https://example.org/a', 'POST'), 'h')).not.toBe(requestFingerprint(networkRequest('https://example.org/a'), 'h'));
    const skill = { class: 'skill' as const, name: 'notes', path: paths[0]! };
    expect(requestFingerprint({ ...skill, name: 'release' }, 'load_skill')).not.toBe(requestFingerprint(skill, 'load_skill'));
    expect(requestFingerprint({ ...skill, path: paths[2]! }, 'load_skill')).not.toBe(requestFingerprint(skill, 'load_skill'));
    for (const [a, b] of [
      [0, 1],
      [0, 2],
      [0, 4],
      [3, 0],
    ] as const) {
      expect(requestFingerprint({ class: 'write', path: paths[a]! }, 'w')).not.toBe(requestFingerprint({ class: 'write', path: paths[b]! }, 'w'));
    }
  });

  it('changes whenever any single fact of any request changes', () => {
    fc.assert(
      fc.property(
        capabilityRequest(paths).chain((request) => fc.tuple(fc.constant(request), fc.constantFrom(...changeableLocations(request)))),
        ([request, location]) => {
          const changed = withChange(request, location, paths);
          expect(requestFingerprint(changed, 'tool')).not.toBe(requestFingerprint(request, 'tool'));
        },
      ),
      { numRuns: 500 },
    );
  });
});
