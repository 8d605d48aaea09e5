import type { ApprovalAnswer, Approver, Decider } from './approval.js';
import { describeRequest, grantingRule, type CapabilityRequest } from './capability.js';
import { ToolError } from './errors.js';
import type { AuditRecord, EventSink } from './events.js';
import { requestFingerprint } from './fingerprint.js';
import type { GateAnswer, PreToolGate } from './gates.js';
import type { Policy, PolicyDecision } from './policy.js';
import { ruleMatches, type Rule } from './rules.js';

/** Answers given ahead of time, by `--approve RULE` and `--yes`. */
export interface ScriptedApprovals {
  rules: readonly Rule[];
  yes: boolean;
}

export interface AuthorizationSubject {
  callId: string;
  stepId: string | undefined;
  tool: string;
}

export interface AuthorizerOptions {
  policy: Policy;
  workspaceRoot: string;
  gates: readonly PreToolGate[];
  scripted: ScriptedApprovals;
  approver: Approver | undefined;
  emit: EventSink;
}

/**
 * The authorization path of one run: policy → gates → remembered → scripted → approver.
 * Each request is answered exactly once; remembered rules live only in this object.
 */
export class Authorizer {
  private seq = 0;
  private readonly remembered = new Set<string>();
  private readonly audit: AuditRecord[] = [];

  constructor(private readonly options: AuthorizerOptions) {}

  auditSnapshot(): readonly AuditRecord[] {
    return [...this.audit];
  }

  async authorize(subject: AuthorizationSubject, request: CapabilityRequest, signal: AbortSignal): Promise<void> {
    const seq = ++this.seq;
    const evaluation = this.options.policy.evaluate(request, this.options.workspaceRoot);
    if (evaluation.decision === 'deny') {
      this.record(subject, request, seq, 'deny', 'policy');
      throw policyDenied(subject, request, evaluation.rule?.text, evaluation.decidedByOutside);
    }
    const gate = await this.consultGates(subject, request, evaluation.decision, signal);
    if (gate.decision === 'deny') {
      this.record(subject, request, seq, 'deny', 'hook');
      throw new ToolError('hook_denied', `${describe(subject, request)} was denied by hook ${gate.hook}: ${gate.reason}`, {
        details: { class: request.class, hook: gate.hook },
      });
    }
    if (evaluation.decision === 'allow') {
      this.record(subject, request, seq, 'allow', 'policy');
      return;
    }
    const fingerprint = requestFingerprint(request, subject.tool);
    if (this.remembered.has(fingerprint)) {
      this.record(subject, request, seq, 'allow', 'remembered');
      return;
    }
    if (this.options.scripted.yes || this.options.scripted.rules.some((rule) => ruleMatches(rule, request, this.options.workspaceRoot))) {
      this.record(subject, request, seq, 'allow', 'flag');
      return;
    }
    const answer = await this.askApprover(subject, request, seq, evaluation.rule?.text, signal);
    if (answer === 'deny') {
      this.record(subject, request, seq, 'deny', 'user');
      throw new ToolError('approval_denied', `${describe(subject, request)} was not approved`, { details: { class: request.class } });
    }
    if (answer === 'allow_run') this.remembered.add(fingerprint);
    this.record(subject, request, seq, 'allow', 'user');
  }

  private async consultGates(
    subject: AuthorizationSubject,
    request: CapabilityRequest,
    policyDecision: Exclude<PolicyDecision, 'deny'>,
    signal: AbortSignal,
  ): Promise<{ decision: 'continue' } | { decision: 'deny'; reason: string; hook: string }> {
    const answers = await Promise.all(
      this.options.gates.map(async (gate) => {
        let answer: GateAnswer;
        try {
          answer = await gate.evaluate({ ...subject, request, policyDecision }, signal);
        } catch (cause) {
          answer = { decision: 'deny', reason: `the gate failed: ${(cause as Error).message}` };
        }
        return { gate, answer };
      }),
    );
    if (signal.aborted) throw cancelled(subject, request);
    const denied = answers.find(({ answer }) => answer.decision !== 'continue');
    if (!denied) return { decision: 'continue' };
    const reason = denied.answer.decision === 'deny' ? denied.answer.reason : 'malformed answer';
    return { decision: 'deny', reason, hook: denied.gate.name };
  }

  private async askApprover(
    subject: AuthorizationSubject,
    request: CapabilityRequest,
    seq: number,
    askedBy: string | undefined,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const approver = this.options.approver;
    const hint = `--approve '${grantingRule(request)}'`;
    if (!approver) {
      this.record(subject, request, seq, 'deny', 'policy');
      throw new ToolError(
        'approval_denied',
        `${describe(subject, request)} needs approval${askedBy ? ` (rule ask: ${askedBy})` : ''} and nobody can answer here; run again with ${hint} or --yes`,
        { details: { class: request.class, hint } },
      );
    }
    this.options.emit({ type: 'approval_requested', seq, callId: subject.callId, stepId: subject.stepId, class: request.class });
    if (signal.aborted) throw cancelled(subject, request);
    let settle: (answer: ApprovalAnswer) => void = () => {};
    const waitForCancel = new Promise<never>((_, reject) => {
      const onAbort = () => reject(cancelled(subject, request));
      signal.addEventListener('abort', onAbort, { once: true });
      settle = () => signal.removeEventListener('abort', onAbort);
    });
    try {
      const answer = await Promise.race([approver.approve({ ...subject, seq, request, askedBy }, signal), waitForCancel]);
      return answer === 'allow_once' || answer === 'allow_run' ? answer : 'deny';
    } catch (cause) {
      if (signal.aborted) throw cancelled(subject, request);
      throw new ToolError('approval_denied', `${describe(subject, request)} was not approved: the approver failed`, { cause });
    } finally {
      settle('deny');
    }
  }

  private record(subject: AuthorizationSubject, request: CapabilityRequest, seq: number, result: 'allow' | 'deny', decider: Decider): void {
    if (this.audit.some((entry) => entry.seq === seq)) return;
    this.audit.push({ seq, class: request.class, result, decider });
    this.options.emit({ type: 'approval_decided', seq, callId: subject.callId, stepId: subject.stepId, class: request.class, result, decider });
  }
}

function describe(subject: AuthorizationSubject, request: CapabilityRequest): string {
  const where = subject.stepId ? `step ${subject.stepId}: ` : '';
  return `${where}${request.class} request "${describeRequest(request)}"`;
}

function policyDenied(subject: AuthorizationSubject, request: CapabilityRequest, rule: string | undefined, byOutside: boolean): ToolError {
  const grant = byOutside ? 'outside' : grantingRule(request);
  const reason = rule ? `the rule deny: ${rule} matches` : `no rule allows it`;
  const fix = rule ? `remove or narrow that deny rule` : `add --allow '${grant}' (or policy.allow: ["${grant}"])`;
  const outsideNote = byOutside ? ' (the path is outside the workspace, which also needs the "outside" rule)' : '';
  return new ToolError('policy_denied', `${describe(subject, request)} was denied by policy: ${reason}${outsideNote}; to grant it, ${fix}`, {
    details: { class: request.class, rule: grant },
  });
}

function cancelled(subject: AuthorizationSubject, request: CapabilityRequest): ToolError {
  return new ToolError('cancelled', `${describe(subject, request)} was cancelled while waiting for a decision`);
}
