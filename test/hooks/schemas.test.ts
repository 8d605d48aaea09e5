import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGateAnswer } from '../../src/hooks/gate-answer.js';
import { hookJsonSchemaText, hookSchemaFiles, hookSchemaNames } from '../../src/hooks/json-schemas.js';
import { repoRoot } from '../support/cli.js';

describe('the shipped JSON Schemas', () => {
  it.each(hookSchemaNames)('%s is generated from the zod schema (regenerate with: node bin/dev.js hooks schema NAME > FILE)', async (name) => {
    const shipped = await readFile(path.join(repoRoot, hookSchemaFiles[name]), 'utf8');
    expect(shipped).toBe(hookJsonSchemaText(name));
  });
});

describe('gate answers', () => {
  it('accept exactly continue, or deny with an optional reason', () => {
    expect(parseGateAnswer('{"decision":"continue"}\n')).toEqual({ ok: true, answer: { decision: 'continue' } });
    expect(parseGateAnswer('{"decision":"deny","reason":"no"}')).toEqual({ ok: true, answer: { decision: 'deny', reason: 'no' } });
  });

  it.each([
    '',
    '   ',
    '{}',
    '[]',
    'null',
    '{"decision":"allow"}',
    '{"decision":"continue","reason":"x"}',
    '{"decision":"CONTINUE"}',
    'continue',
    '{"decision":"continue"} trailing',
  ])('refuse %j', (stdout) => {
    expect(parseGateAnswer(stdout).ok).toBe(false);
  });
});
