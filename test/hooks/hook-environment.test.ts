import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookEnvironment } from '../../src/hooks/hook-environment.js';
import { resolveHookProgram } from '../../src/hooks/load-hooks.js';
import { systemDirectories, trustedSearchPath } from '../../src/tools/process/trusted-programs.js';

describe('hookEnvironment', () => {
  it('gives hook programs no credential: passwords, webhooks, agent sockets, keys, URLs with user info, declared secrets', () => {
    const env = hookEnvironment(
      {
        PATH: '/usr/bin',
        HOME: '/home/u',
        DB_PASS: 'canary-1',
        SLACK_WEBHOOK_URL: 'https://hooks.example/canary-2',
        SSH_AUTH_SOCK: '/tmp/canary-3',
        DEPLOY_KEY: 'canary-4',
        DATABASE_URL: 'postgres://app:canary-5@db/main',
        RELEASE_NOTE: 'canary-6',
      },
      ['RELEASE_NOTE'],
    );
    expect(env).toEqual({ PATH: trustedSearchPath(), HOME: '/home/u' });
  });

  it('gives hook programs a PATH of this Node and the system directories, never the host PATH a step may have filled', () => {
    const env = hookEnvironment({ PATH: '/work/node_modules/.bin:/home/u/.local/bin:/usr/bin' }, []);
    expect(env.PATH!.split(':')).toEqual([path.dirname(process.execPath), ...systemDirectories].filter((entry, index, all) => all.indexOf(entry) === index));
  });
});

describe('resolveHookProgram', () => {
  it('runs node as the Node that runs rho, other bare names from the system directories only, paths as written', () => {
    expect(resolveHookProgram('node', '/hooks')).toBe(process.execPath);
    expect(resolveHookProgram('sh', '/hooks')).toMatch(/^\/(usr\/)?(local\/)?s?bin\/sh$/);
    expect(resolveHookProgram('./gate.mjs', '/hooks')).toBe('/hooks/gate.mjs');
    expect(resolveHookProgram('/opt/gate', '/hooks')).toBe('/opt/gate');
    expect(() => resolveHookProgram('rho-no-such-gate', '/hooks')).toThrow(
      expect.objectContaining({
        kind: 'invalid_hooks',
        message: expect.stringContaining('is never looked up on PATH, where a step could plant one: name it by its absolute path'),
      }),
    );
  });
});
