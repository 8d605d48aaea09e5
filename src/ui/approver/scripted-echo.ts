import type { ScriptedDecision } from '../../host/authorization.js';
import { describeRequest } from '../../host/capability.js';
import { shellQuote } from '../../host/denials.js';
import { printable } from '../safe-text.js';

/** The line a log shows for a request a flag answered: which flag, and what it allowed. */
export function formatScriptedDecision(decision: ScriptedDecision): string {
  const flag = decision.answeredBy.flag === 'yes' ? '--yes' : `--approve ${shellQuote(decision.answeredBy.rule)}`;
  return `approved by ${printable(flag)}: ${decision.request.class} request "${printable(describeRequest(decision.request))}" (allow once)`;
}
