import { shellQuote, type GrantHints } from '../host/denials.js';

/** Denials at the command line name the flag (and the policy key) that grants what was refused, ready to paste. */
export const cliGrantHints: GrantHints = {
  allow: (rule) => `add --allow ${shellQuote(rule)} (or policy.allow: [${JSON.stringify(rule)}])`,
  approve: (rule) => `run again with ${approveFlag(rule)} (or --yes to approve every request)`,
  nobodyToAsk: 'no terminal, CI=true or --no-input',
};

/** The flag that would answer a request that `rule` matches without asking. */
export function approveFlag(rule: string): string {
  return `--approve ${shellQuote(rule)}`;
}
