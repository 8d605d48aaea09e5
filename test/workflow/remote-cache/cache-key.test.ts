import { describe, expect, it } from 'vitest';
import { computeCacheKey, type CacheKeyInputs } from '../../../src/workflow/up-to-date/cache-key.js';

const base: CacheKeyInputs = {
  tool: 'shell',
  args: { script: 'make', env: { MODE: 'release' } },
  env: { TARGET: 'web' },
  secrets: {},
  sources: new Map([['src/a.c', 'a'.repeat(64)]]),
  generates: ['dist/**'],
  os: 'linux',
  arch: 'x64',
};

const keyOf = (change: Partial<CacheKeyInputs> = {}) => computeCacheKey({ ...base, ...change }).hash;

describe('computeCacheKey', () => {
  it('is the same for the same inputs, whatever the order of keys and sources', () => {
    const reordered = {
      ...base,
      args: { env: { MODE: 'release' }, script: 'make' },
      sources: new Map([
        ['src/b.c', 'b'.repeat(64)],
        ['src/a.c', 'a'.repeat(64)],
      ]),
    };
    const withB = {
      ...base,
      sources: new Map([
        ['src/a.c', 'a'.repeat(64)],
        ['src/b.c', 'b'.repeat(64)],
      ]),
    };
    expect(computeCacheKey(reordered).hash).toBe(computeCacheKey(withB).hash);
    expect(keyOf()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with each input that decides the outputs', () => {
    const variants = [
      keyOf({ tool: 'exec' }),
      keyOf({ args: { script: 'make all', env: { MODE: 'release' } } }),
      keyOf({ env: { TARGET: 'cli' } }),
      keyOf({ sources: new Map([['src/a.c', 'c'.repeat(64)]]) }),
      keyOf({ sources: new Map([['src/renamed.c', 'a'.repeat(64)]]) }),
      keyOf({ generates: ['out/**'] }),
      keyOf({ os: 'darwin' }),
      keyOf({ arch: 'arm64' }),
      keyOf({ secrets: { TOKEN: 'value-one' } }),
    ];
    expect(new Set([keyOf(), ...variants]).size).toBe(variants.length + 1);
  });

  it('holds whether a secret is set, never its value, wherever the value appears', () => {
    const withSecret = (value: string) =>
      computeCacheKey({ ...base, secrets: { TOKEN: value }, args: { script: 'make', env: { AUTH: value } }, env: { TARGET: 'web', HEADER: `Bearer ${value}` } });
    const one = withSecret('first-secret-value');
    const two = withSecret('second-secret-value');
    expect(one.hash).toBe(two.hash);
    expect(one.inputs.join(' ')).not.toContain('first-secret-value');
    expect(one.inputs).toContain('secrets TOKEN (whether set, never their values)');
  });

  it('says what it is made of', () => {
    expect(computeCacheKey(base).inputs).toEqual([
      'tool shell and its arguments',
      'variables TARGET',
      '1 source file',
      'generates dist/**',
      'platform linux/x64',
      'cache format 1',
    ]);
  });
});
