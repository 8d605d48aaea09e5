import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Policy } from '../../src/host/policy.js';
import { parseRule, readRuleCovers } from '../../src/host/rules.js';

const root = '/work/ws';

/** Names of entries, and glob segments made of them and of glob syntax. */
const name = fc.constantFrom('a', 'b', 'ab', 'src', '.env', 'a.b', '-x', '_', '..a', 'café', 'cafe\u0301', 'A');
const globSegment = fc.oneof(name, fc.constantFrom('*', '**', '?', '[ab]', '{a,b}', 'a*', '*.b', '.', '@(a|b)', '+(a)', '!(a)', '\\a', ''));
const glob = fc.array(globSegment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join('/'));
const ruleText = fc.oneof(
  fc.constant('read'),
  glob.map((text) => `read(${text})`),
  glob.map((text) => `read(!${text})`),
  glob.map((text) => `read(/work/${text})`),
  fc.constant('write(a/**)'),
);
const parsedRule = ruleText.chain((text) => {
  try {
    return fc.constant(parseRule(text));
  } catch {
    return fc.constant(parseRule('read(a)'));
  }
});
const entry = fc.oneof(
  fc.array(name, { minLength: 1, maxLength: 5 }).map((segments) => path.join(root, ...segments)),
  fc.array(name, { minLength: 1, maxLength: 3 }).map((segments) => path.join('/work', ...segments)),
);

describe('withholdsRead, narrowed to the rules that can cover a directory', () => {
  it('keeps back exactly what testing every deny and ask rule on the entry keeps back', () => {
    fc.assert(
      fc.property(fc.array(parsedRule, { maxLength: 4 }), fc.array(parsedRule, { maxLength: 3 }), fc.array(entry, { minLength: 1, maxLength: 12 }), (deny, ask, entries) => {
        const policy = new Policy({ allow: [parseRule('read')], deny, ask });
        for (const absolute of entries) {
          const everyRule = [...deny, ...ask].some((rule) => readRuleCovers(rule, absolute, root));
          expect(policy.withholdsRead(absolute, root), `${absolute} with ${[...deny, ...ask].map((rule) => rule.text).join(', ')}`).toBe(everyRule);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
