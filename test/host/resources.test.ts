import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/host/errors.js';
import { accessesConflict, containersOf, describeResourceKind, exclusive, opaqueKey, redactedResource, resourcesOverlap, shared, type Resource } from '../../src/host/resources.js';

const file = (path: string): Resource => ({ kind: 'path', path });
const tree = (path: string): Resource => ({ kind: 'tree', path });
const processId = (id: string): Resource => ({ kind: 'process', id });
const session: Resource = { kind: 'session' };

describe('access modes', () => {
  it.each([
    ['shared', 'shared', false],
    ['shared', 'exclusive', true],
    ['exclusive', 'shared', true],
    ['exclusive', 'exclusive', true],
  ] as const)('%s vs %s on the same file conflicts: %s', (a, b, expected) => {
    const make = { shared, exclusive };
    expect(accessesConflict(make[a](file('/w/a.txt')), make[b](file('/w/a.txt')))).toBe(expected);
  });

  it('never conflicts on resources that do not overlap, whatever the modes', () => {
    expect(accessesConflict(exclusive(file('/w/a.txt')), exclusive(file('/w/b.txt')))).toBe(false);
    expect(accessesConflict(exclusive(session), exclusive(processId('7')))).toBe(false);
  });
});

describe('resource overlap', () => {
  it.each<[string, Resource, Resource, boolean]>([
    ['a path and itself', file('/a/b'), file('/a/b'), true],
    ['two different paths', file('/a/b'), file('/a/c'), false],
    ['a path and the tree containing it', file('/a/b/c.txt'), tree('/a'), true],
    ['a path and the tree rooted at it', file('/a/b'), tree('/a/b'), true],
    ['a path and a tree beside it', file('/a/b/c.txt'), tree('/a/x'), false],
    ['a path and a tree under it', file('/a'), tree('/a/b'), false],
    ['/a/bc and the tree /a/b', file('/a/bc'), tree('/a/b'), false],
    ['/a/b and the tree /a/bc', file('/a/b'), tree('/a/bc'), false],
    ['nested trees', tree('/a'), tree('/a/b/c'), true],
    ['a tree and itself', tree('/a/b'), tree('/a/b'), true],
    ['sibling trees', tree('/a/b'), tree('/a/c'), false],
    ['trees /a/b and /a/bc', tree('/a/b'), tree('/a/bc'), false],
    ['the root tree and any path', tree('/'), file('/etc/hosts'), true],
    ['a tree written with a trailing separator', tree('/a/b/'), file('/a/b/c'), true],
    ['the same process id', processId('41'), processId('41'), true],
    ['different process ids', processId('41'), processId('42'), false],
    ['session and session', session, session, true],
    ['keys of one owner and key', opaqueKey('git', 'index'), opaqueKey('git', 'index'), true],
    ['same key, different owners', opaqueKey('git', 'index'), opaqueKey('npm', 'index'), false],
    ['same owner, different keys', opaqueKey('git', 'index'), opaqueKey('git', 'HEAD'), false],
    ['a path and a process with the same text', file('41'), processId('41'), false],
    ['session and a key', session, opaqueKey('session', 'state'), false],
  ])('%s: %s', (_name, a, b, expected) => {
    expect(resourcesOverlap(a, b)).toBe(expected);
    expect(resourcesOverlap(b, a)).toBe(expected);
  });
});

describe('containersOf', () => {
  it('lists the path and every directory containing it, nearest first, component-wise', () => {
    expect(containersOf('/a/bc/d.txt')).toEqual(['/a/bc/d.txt', '/a/bc', '/a', '/']);
    expect(containersOf('/a/b/')).toEqual(['/a/b', '/a', '/']);
    expect(containersOf('/')).toEqual(['/']);
    expect(containersOf('a/b')).toEqual(['a/b', 'a']);
  });
});

describe('opaqueKey', () => {
  it('requires an owner namespace and a key', () => {
    expect(() => opaqueKey('', 'index')).toThrow(ToolError);
    expect(() => opaqueKey('', 'index')).toThrow(/owner namespace/);
    expect(() => opaqueKey('git:x', 'index')).toThrow(/without ':'/);
    expect(() => opaqueKey('git', '')).toThrow(/empty/);
    expect(opaqueKey('git', 'refs:main')).toEqual({ kind: 'key', owner: 'git', key: 'refs:main' });
  });
});

describe('redaction', () => {
  const secretPath = '/home/alice/secret-project/credentials.json';

  it('keeps resource values out of JSON and inspect output', () => {
    const access = exclusive(file(secretPath));
    expect(JSON.stringify(access)).toBe('{"mode":"exclusive","kind":"path"}');
    expect(JSON.stringify(access.resource)).toBe('{"kind":"path"}');
    expect(inspect(access)).not.toContain('secret');
    expect(inspect({ nested: [access] }, { depth: 5 })).not.toContain('secret');
    expect(JSON.stringify(shared(opaqueKey('vault', 'token-for-alice')))).not.toContain('alice');
  });

  it('still lets code read the value and compare accesses', () => {
    const access = shared(file(secretPath));
    expect(access.resource).toEqual({ kind: 'path', path: secretPath });
    expect(access).toEqual({ mode: 'shared', resource: { kind: 'path', path: secretPath } });
    expect(redactedResource(access)).toEqual({ mode: 'shared', kind: 'path' });
  });

  it('does not change the resource it was given', () => {
    const resource = file(secretPath);
    shared(resource);
    expect(JSON.stringify(resource)).toContain('secret');
  });

  it('describes kinds without values', () => {
    expect(describeResourceKind(file(secretPath))).toBe('file path');
    expect(describeResourceKind('tree')).toBe('directory tree');
    expect(describeResourceKind(opaqueKey('git', 'index'))).toBe('opaque key');
    expect(describeResourceKind(processId('9'))).toBe('managed process');
    expect(describeResourceKind(session)).toBe('session state');
  });
});
