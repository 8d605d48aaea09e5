import { afterEach, describe, expect, it } from 'vitest';
import { composeEnvironment, isCredentialName, isCredentialVariable, scrubEnvironment, validateStepEnvironment } from '../../../src/tools/process/environment.js';
import { ProcessHarness, dataOf, node, script } from './harness.js';

const canaries: Record<string, string> = {
  OPENAI_API_KEY: 'canary-openai',
  ANTHROPIC_API_KEY: 'canary-anthropic',
  AWS_ACCESS_KEY_ID: 'canary-aws-id',
  AWS_SECRET_ACCESS_KEY: 'canary-aws-secret',
  GITHUB_TOKEN: 'canary-github',
  NPM_TOKEN: 'canary-npm',
  DB_PASSWORD: 'canary-password',
  STRIPE_SECRET: 'canary-stripe',
  CLIENT_SECRET_VALUE: 'canary-client-secret',
  GOOGLE_APPLICATION_CREDENTIALS: 'canary-google',
  npm_config__authToken: 'canary-npmrc',
  hf_token: 'canary-lowercase',
  DB_PASS: 'canary-db-pass',
  MYSQL_PASSPHRASE: 'canary-passphrase',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/canary',
  DISCORD_WEBHOOK: 'canary-discord',
  SSH_AUTH_SOCK: '/tmp/ssh-canary/agent.1',
  GPG_AGENT_INFO: '/tmp/gpg-canary',
  SIGNING_KEY: 'canary-signing',
  DEPLOY_KEYS: 'canary-deploy-keys',
  DOCKER_AUTH_CONFIG: 'canary-docker',
  SESSION_COOKIE: 'canary-cookie',
  AZURE_STORAGE_CONNECTION_STRING: 'canary-azure',
  MYSQL_PWD: 'canary-mysql-pwd',
  LDAP_BIND_PW: 'canary-ldap-pw',
  ID_RSA: 'canary-id-rsa',
  KUBE_CONFIG_DATA: 'canary-kubeconfig',
};

/** Variables whose names look harmless but whose value is a URL holding user info. */
const userInfoUrls: Record<string, string> = {
  DATABASE_URL: 'postgres://app:canary-pw@db.internal/main',
  REDIS_URL: 'redis://:canary-redis@cache:6379',
  SENTRY_DSN: 'https://canary-key@sentry.example/1',
  UPSTREAM: 'https://canary-token@git.example/repo.git',
};

describe('credential names', () => {
  it.each(Object.keys(canaries))('%s is a credential', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'NODE_ENV', 'CI', 'TOKENIZERS_PARALLELISM', 'KEYBOARD', 'GITHUB_ACTIONS', 'AUTHOR_NAME', 'OAUTH_SCOPES', 'PWD', 'OLDPWD', 'RSAT_HOME'])(
    '%s is not a credential',
    (name) => {
      expect(isCredentialName(name)).toBe(false);
    },
  );

  it('a URL with user info is a credential whatever its name; one without is not', () => {
    for (const [name, value] of Object.entries(userInfoUrls)) expect(isCredentialVariable(name, value), name).toBe(true);
    expect(isCredentialVariable('DATABASE_URL', 'postgres://db.internal/main')).toBe(false);
    expect(isCredentialVariable('HOMEPAGE', 'see https://example.org/a@b')).toBe(false);
    const scrubbed = scrubEnvironment({ ...userInfoUrls, HOME: '/home/u' }, ['DATABASE_URL']);
    expect(scrubbed).toEqual({ HOME: '/home/u', DATABASE_URL: userInfoUrls['DATABASE_URL'] });
    expect(() => validateStepEnvironment({ REDIS_URL: userInfoUrls['REDIS_URL'] }, [])).toThrow(/REDIS_URL, which looks like a credential/);
  });

  it('scrubEnvironment removes credentials except the allowed secret names', () => {
    const scrubbed = scrubEnvironment({ HOME: '/home/u', NPM_TOKEN: 'n', GITHUB_TOKEN: 'g', UNSET: undefined }, ['NPM_TOKEN']);
    expect(scrubbed).toEqual({ HOME: '/home/u', NPM_TOKEN: 'n' });
  });
});

describe('composeEnvironment', () => {
  const hostEnv = { HOME: '/home/u', LANG: 'C', LC_ALL: 'C.UTF-8', CARGO_HOME: '/home/u/.cargo', OPENAI_API_KEY: 'k', EXTRA: 'x', MYSQL_PWD: 'pw' };

  it('inherits per mode and always scrubs: by default only the allowlisted host variables', () => {
    const allowlisted = { HOME: '/home/u', LANG: 'C', LC_ALL: 'C.UTF-8', CARGO_HOME: '/home/u/.cargo' };
    expect(composeEnvironment({ hostEnv, mode: { mode: 'inherit' }, stepEnv: {} })).toEqual(allowlisted);
    expect(composeEnvironment({ hostEnv, mode: { mode: 'inherit_all' }, stepEnv: {} })).toEqual({ ...allowlisted, EXTRA: 'x' });
    expect(composeEnvironment({ hostEnv, mode: { mode: 'empty' }, stepEnv: {} })).toEqual({});
    expect(composeEnvironment({ hostEnv, mode: { mode: 'inherit_except', names: ['LANG'] }, stepEnv: {} })).toEqual({
      HOME: '/home/u',
      LC_ALL: 'C.UTF-8',
      CARGO_HOME: '/home/u/.cargo',
    });
    expect(composeEnvironment({ hostEnv, mode: { mode: 'inherit_only', names: ['EXTRA', 'OPENAI_API_KEY'] }, stepEnv: {} })).toEqual({ EXTRA: 'x' });
  });

  it('gives every call an environment of its own', () => {
    const first = composeEnvironment({ hostEnv, mode: { mode: 'inherit_all' }, stepEnv: { ONLY_FIRST: '1' } });
    first['MUTATED'] = 'yes';
    expect(composeEnvironment({ hostEnv, mode: { mode: 'inherit_all' }, stepEnv: {} })).not.toHaveProperty('MUTATED');
    expect(composeEnvironment({ hostEnv: { ...hostEnv, EXTRA: 'other' }, mode: { mode: 'inherit_all' }, stepEnv: {} })).toMatchObject({ EXTRA: 'other' });
  });

  it('adds the step variables over the inherited ones', () => {
    expect(composeEnvironment({ hostEnv, mode: { mode: 'empty' }, stepEnv: { LANG: 'en', NPM_TOKEN: 'passed' } })).toEqual({ LANG: 'en', NPM_TOKEN: 'passed' });
  });

  it('refuses a credential-like step variable that is not one of the secrets', () => {
    expect(() => validateStepEnvironment({ DEPLOY_TOKEN: 'literal' }, ['NPM_TOKEN'])).toThrow(/secrets: \[DEPLOY_TOKEN\]/);
    expect(() => validateStepEnvironment({ NPM_TOKEN: 'x', NODE_ENV: 'production' }, ['NPM_TOKEN'])).not.toThrow();
  });
});

describe('child process environments', () => {
  let harness: ProcessHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  async function childEnv(setup: Parameters<typeof ProcessHarness.create>[0], env?: Record<string, string>): Promise<Record<string, string>> {
    harness = await ProcessHarness.create(setup);
    const result = await harness.invoke('exec', { command: node, args: [script('print-env.mjs')], ...(env && { env }) });
    return JSON.parse(dataOf<{ stdout: string }>(result).stdout) as Record<string, string>;
  }

  it.each([
    { mode: 'inherit' as const },
    { mode: 'inherit_all' as const },
    { mode: 'inherit_only' as const, names: [...Object.keys(canaries), ...Object.keys(userInfoUrls)] },
    { mode: 'inherit_except' as const, names: ['HOME'] },
  ])('never receive credential canaries ($mode)', async (processEnv) => {
    const env = await childEnv({ env: { PATH: process.env.PATH, HOME: '/home/canary', ...canaries, ...userInfoUrls }, processEnv });
    const text = JSON.stringify(env);
    for (const value of [...Object.values(canaries), ...Object.values(userInfoUrls)]) expect(text).not.toContain(value);
    if (processEnv.mode === 'inherit') expect(env.HOME).toBe('/home/canary');
  });

  it('inherit no host variable off the allowlist by default, whatever its name', async () => {
    const unlisted = { MYSQL_PWD: 'canary-mysql', DB_PW: 'canary-db', LDAP_BIND_PW: 'canary-ldap', KUBE_CONFIG_DATA: 'canary-kube', ID_RSA: 'canary-rsa', TZ: 'UTC' };
    const env = await childEnv({ env: { PATH: process.env.PATH, ...unlisted } });
    for (const name of ['MYSQL_PWD', 'DB_PW', 'LDAP_BIND_PW', 'KUBE_CONFIG_DATA', 'ID_RSA']) expect(env[name], name).toBeUndefined();
    expect(env.TZ).toBe('UTC');
  });

  it('receive a secret only when the step passes it explicitly', async () => {
    const env = await childEnv({ env: { PATH: process.env.PATH, ...canaries }, secretNames: ['NPM_TOKEN', 'GITHUB_TOKEN'] }, { NPM_TOKEN: 'explicit-npm' });
    expect(env.NPM_TOKEN).toBe('explicit-npm');
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it('get an empty environment in empty mode, apart from what the step sets', async () => {
    const env = await childEnv({ env: { PATH: process.env.PATH, HOME: '/home/u' }, processEnv: { mode: 'empty' } }, { GREETING: 'hi' });
    expect(env.GREETING).toBe('hi');
    expect(env.HOME).toBeUndefined();
  });
});

describe('protected variables', () => {
  let harness: ProcessHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('are in the request with their values, and setting one needs a rule that grants it', async () => {
    harness = await ProcessHarness.create({ allow: [`process(${node})`] });
    const args = { command: node, args: ['-e', 'console.log(process.env.LD_PRELOAD ?? "")'], env: { LD_PRELOAD: '/tmp/x.so', GREETING: 'hi' } };
    const prepared = await harness.host.preview({ id: 'p', tool: 'exec', args }, new AbortController().signal);
    if (!('requests' in prepared)) throw prepared;
    expect(prepared.requests[0]).toMatchObject({ env: { GREETING: 'hi', LD_PRELOAD: '/tmp/x.so' } });
    const narrow = await harness.invoke('exec', args);
    expect(narrow.status).toBe('denied');
    await harness.dispose();

    harness = await ProcessHarness.create({ allow: ['process'] });
    const unrestricted = await harness.invoke('exec', args);
    expect(dataOf<{ stdout: string }>(unrestricted).stdout.trim()).toBe('/tmp/x.so');
  });
});
