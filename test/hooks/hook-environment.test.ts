import { describe, expect, it } from 'vitest';
import { hookEnvironment } from '../../src/hooks/hook-environment.js';

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
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u' });
  });
});
