import { Flags } from '@oclif/core';
import { outputModes } from '../render/choose.js';

/** Flags shared by `run`, `plan` and `invoke`: policy rules and scripted approvals. */
export const policyFlags = {
  workspace: Flags.string({ char: 'w', summary: 'Primary workspace root (overrides the file’s workspace:).', helpValue: 'DIR' }),
  allow: Flags.string({ summary: 'Add an allow rule, e.g. "write(dist/**)". Repeatable.', multiple: true, default: [], helpValue: 'RULE' }),
  ask: Flags.string({ summary: 'Add a rule that requires approval. Repeatable.', multiple: true, default: [], helpValue: 'RULE' }),
  deny: Flags.string({ summary: 'Add a deny rule. Repeatable.', multiple: true, default: [], helpValue: 'RULE' }),
  approve: Flags.string({
    summary: 'Answer approval requests that match RULE with "allow once". Repeatable.',
    multiple: true,
    default: [],
    helpValue: 'RULE',
  }),
  yes: Flags.boolean({ char: 'y', summary: 'Answer every approval request with "allow once" (never overrides a deny).', default: false }),
  'no-input': Flags.boolean({ summary: 'Never prompt, even on a terminal (implied by CI=true or no TTY).', default: false }),
};

export const runFlags = {
  ...policyFlags,
  'max-parallel': Flags.integer({ char: 'j', summary: 'Limit on concurrently executing steps.', min: 1, helpValue: 'N' }),
  input: Flags.string({ char: 'i', summary: 'Workflow input KEY=VALUE. Repeatable.', multiple: true, default: [], helpValue: 'KEY=VALUE' }),
  output: Flags.string({
    summary: 'Output: auto (fancy on a terminal outside CI, else plain), fancy, plain, or json (NDJSON events on stdout).',
    options: [...outputModes],
    default: 'auto',
  }),
  events: Flags.string({ summary: 'Also write NDJSON events to FILE.', helpValue: 'FILE' }),
  junit: Flags.string({ summary: 'Write a JUnit XML report (one testcase per step) to FILE.', helpValue: 'FILE' }),
  timeout: Flags.string({ summary: 'Whole-run wall limit (90s, 5m); exit 124 when it expires.', helpValue: 'DURATION' }),
};
