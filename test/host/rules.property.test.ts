import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantingRule } from '../../src/host/capability.js';
import { parseRule, ruleMatches } from '../../src/host/rules.js';
import { makeSandbox, networkRequest, processRequest, type Sandbox } from './approval-fixtures.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

/** Any word a command line can carry, including quotes, spaces, backslashes and control characters. */
const anyCharacter = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
const word = fc.string({ unit: fc.oneof(fc.constantFrom('"', "'", '\\', ' ', '\n', '\t', '(', ')', '*', '$'), anyCharacter), maxLength: 12 });

/** A file name with glob syntax in it: it must still be granted literally. */
const fileName = fc
  .string({
    unit: fc.oneof(fc.constantFrom(...'*?[]{}()!+@, #~\\^$"\'.:=%&;<>|`'), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })),
    minLength: 1,
    maxLength: 10,
  })
  .filter((name) => !name.includes('/') && !name.includes('\0') && name.trim() === name && name !== '.' && name !== '..');

describe('the rule a denial suggests (grantingRule)', () => {
  it('parses and grants the very process request it was made for, and no other program or first argument', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), word, (argv, other) => {
        const request = processRequest({ argv });
        const rule = parseRule(grantingRule(request));
        expect(ruleMatches(rule, request, box.root)).toBe(true);
        if (other !== argv[0]) expect(ruleMatches(rule, processRequest({ argv: [other, ...argv.slice(1)] }), box.root)).toBe(false);
        expect(ruleMatches(rule, processRequest({ argv, executable: { requested: 'npx', resolved: '/usr/bin/npx', lookup: 'path_search' } }), box.root)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('grants a file whose name contains glob syntax literally, and not its neighbour', async () => {
    let index = 0;
    await fc.assert(
      fc.asyncProperty(fileName, async (name) => {
        const dir = path.join(box.root, 'names', String(index++));
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, name), 'x');
        await writeFile(path.join(dir, 'neighbour'), 'y');
        const request = { class: 'read' as const, target: 'file' as const, path: await box.workspace.resolveForRead(path.join(dir, name)) };
        const neighbour = { ...request, path: await box.workspace.resolveForRead(path.join(dir, 'neighbour')) };
        const rule = parseRule(grantingRule(request));
        expect(ruleMatches(rule, request, box.root)).toBe(true);
        expect(ruleMatches(rule, neighbour, box.root)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('grants a network request by its normalized host and port', () => {
    const host = fc.constantFrom('example.org', 'EXAMPLE.org', 'bücher.de', '127.0.0.1', '[::1]');
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, fc.option(fc.integer({ min: 1, max: 65535 })), (scheme, name, port) => {
        const request = networkRequest(`${scheme}://${name}${port === null ? '' : `:${port}`}/path?q=1`);
        expect(ruleMatches(parseRule(grantingRule(request)), request, box.root)).toBe(true);
      }),
    );
  });
});
