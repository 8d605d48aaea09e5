import { raceAbort } from './abort.js';
import { ApprovalAudit } from './approval-audit.js';
import { ApprovalTurns } from './approval-turns.js';
import type { ApprovalAnswer, Approver, Decider } from './approval.js';
import type { CapabilityRequest } from './capability.js';
import { approvalDenied, approverFailed, cancelled, hookDenied, libraryGrantHints, policyDenied, unanswered, type AuthorizationSubject, type GrantHints } from './denials.js';
import type { ToolError } from './errors.js';
import type { AuditRecord, HostEvent } from './events.js';
import { requestFingerprint } from './fingerprint.js';
import { freezeRequest } from './frozen-request.js';
import type { PreToolGate } from './gates.js';
import { hostWithPort } from './network-host.js';
import type { PolicyEvaluation, PolicyEvaluator } from './policy.js';
import { ruleMatches, type Rule } from './rules.js';

export type { AuthorizationSubject } from './denials.js';

/** Which flag answered a request ahead of time. */
export type ScriptedAnswer = { flag: 'yes' } | { flag: 'approve'; rule: string };

/** A decision made by `--approve`/`--yes`, for the output to echo (it may name paths and commands; the audit never does). */
export interface ScriptedDecision extends AuthorizationSubject {
  request: CapabilityRequest;
  answeredBy: ScriptedAnswer;
}

/** Answers given ahead of time, by `--approve RULE` and `--yes`. */
export interface ScriptedApprovals {
  rules: readonly Rule[];
  yes: boolean;
  /** Called for every request a flag answered, so a log shows who decided what. */
  onDecision?: (decision: ScriptedDecision) => void;
}

export interface AuthorizerOptions {
  policy: PolicyEvaluator;
  workspaceRoot: string;
  gates: readonly PreToolGate[];
  scripted: ScriptedApprovals;
  /** How denials say what would grant a request; the library's wording when absent. */
  hints?: GrantHints;
  /** Undefined when nobody can answer (no TTY, CI, `--no-input`): unanswered requests are denied at once. */
  approver: Approver | undefined;
  /** Reports an approval event of the call `callId`. */
  emit(callId: string, event: HostEvent): void;
  /** Whether the tool lets an "allow for this run" answer cover its later identical requests; yes when absent. */
  remembersApprovals?(tool: string): boolean;
}

type GateVerdict = { decision: 'continue' } | { decision: 'deny'; reason: string; hook: string };

/** One request on its way through the path, numbered for the audit: the frozen value every step decides on. */
interface Pending {
  subject: AuthorizationSubject;
  request: CapabilityRequest;
  seq: number;
}

/** What approval would go by, computed from the frozen request before any gate runs. */
interface ApprovalFacts {
  /** Its remembered-approval identity; undefined when the tool's approvals are never remembered. */
  fingerprint: string | undefined;
  scripted: ScriptedAnswer | undefined;
}

const answers: ReadonlySet<unknown> = new Set<ApprovalAnswer>(['allow_once', 'allow_run', 'deny']);

/**
 * The authorization path of one run: policy → gates → remembered → scripted → approver.
 * Each request gets exactly one decision, recorded once in the audit. Approvals are asked one
 * at a time; "allow for this run" answers live only in this object and never outrank the
 * policy or a gate, which are consulted first on every request.
 */
export class Authorizer {
  private seq = 0;
  private readonly remembered = new Set<string>();
  private readonly audit = new ApprovalAudit();
  private readonly turns = new ApprovalTurns();

  private readonly hints: GrantHints;

  constructor(private readonly options: AuthorizerOptions) {
    this.hints = options.hints ?? libraryGrantHints;
  }

  auditSnapshot(): readonly AuditRecord[] {
    return this.audit.snapshot();
  }

  /**
   * Resolves when the request is allowed; rejects with a typed denial or `cancelled`. The
   * request is frozen first (a copy of what the asker passed): the policy decides on that value,
   * and the fingerprint and scripted match are taken from it before any gate runs; gates and the
   * approver get the same frozen value.
   */
  async authorize(subject: AuthorizationSubject, asked: CapabilityRequest, signal: AbortSignal): Promise<void> {
    const request = freezeRequest(asked);
    if (signal.aborted) throw cancelled(subject, request);
    const pending: Pending = { subject: Object.freeze({ ...subject }), request, seq: ++this.seq };
    const evaluation = this.options.policy.evaluate(request, this.options.workspaceRoot);
    if (evaluation.decision === 'deny') throw this.deny(pending, 'policy', policyDenied(subject, request, evaluation, this.hints));
    const facts = evaluation.decision === 'ask' ? this.approvalFacts(pending) : undefined;
    const gate = await this.consultGates(pending, evaluation.decision, signal);
    if (gate.decision === 'deny') throw this.deny(pending, 'hook', hookDenied(subject, request, gate.hook, gate.reason));
    if (!facts) return this.record(pending, 'allow', 'policy');
    return this.approve(pending, evaluation, facts, signal);
  }

  private approvalFacts({ subject, request }: Pending): ApprovalFacts {
    const remembers = this.options.remembersApprovals?.(subject.tool) ?? true;
    return { fingerprint: remembers ? requestFingerprint(request, subject.tool) : undefined, scripted: this.scriptedAnswer(request) };
  }

  /** Approval is required: remembered, then scripted, then the approver (or a denial when there is none). */
  private async approve(pending: Pending, evaluation: PolicyEvaluation, { fingerprint, scripted }: ApprovalFacts, signal: AbortSignal): Promise<void> {
    const { subject, request } = pending;
    const remembered = () => fingerprint !== undefined && this.remembered.has(fingerprint);
    if (remembered()) return this.record(pending, 'allow', 'remembered');
    if (scripted) {
      this.record(pending, 'allow', 'flag');
      this.options.scripted.onDecision?.(Object.freeze({ ...subject, request, answeredBy: scripted }));
      return;
    }
    const approver = this.options.approver;
    if (!approver) throw this.deny(pending, 'policy', unanswered(subject, request, evaluation.rule?.text, this.hints));
    this.options.emit(subject.callId, { type: 'approval_requested', stepId: subject.stepId ?? subject.callId, request: pending.seq, class: request.class, ...hostOf(request) });
    const release = await this.turns.acquire(signal, () => cancelled(subject, request));
    try {
      // An identical request ahead in the queue may have been allowed for the run meanwhile.
      if (remembered()) return this.record(pending, 'allow', 'remembered');
      const answer = await this.ask(approver, pending, evaluation, fingerprint !== undefined, signal);
      if (answer === 'deny') throw this.deny(pending, 'user', approvalDenied(subject, request, this.hints));
      if (answer === 'allow_run' && fingerprint !== undefined) this.remembered.add(fingerprint);
      this.record(pending, 'allow', 'user');
    } finally {
      release();
    }
  }

  private scriptedAnswer(request: CapabilityRequest): ScriptedAnswer | undefined {
    const { yes, rules } = this.options.scripted;
    if (yes) return { flag: 'yes' };
    // An --approve rule must grant the environment the process sets, here as in the policy.
    const rule = rules.find(
      (candidate) => ruleMatches(candidate, request, this.options.workspaceRoot) && this.options.policy.environmentNotGranted(candidate, request).length === 0,
    );
    return rule && { flag: 'approve', rule: rule.text };
  }

  /** Asks the approver; a cancellation wins at once and the answer that may follow is ignored. */
  private async ask(approver: Approver, pending: Pending, evaluation: PolicyEvaluation, rememberable: boolean, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { subject, request, seq } = pending;
    let answer: unknown;
    try {
      const asked = Object.freeze({ ...subject, seq, request, askedBy: evaluation.rule?.text, rememberable });
      answer = await raceAbort(Promise.resolve(approver.approve(asked, signal)), signal);
    } catch (cause) {
      if (signal.aborted) throw cancelled(subject, request);
      throw this.deny(pending, 'user', approverFailed(subject, request, cause));
    }
    // Anything but a known answer is a no: an approver in doubt says no.
    return answers.has(answer) ? (answer as ApprovalAnswer) : 'deny';
  }

  /** Runs every gate at once; the strictest answer wins, and a gate that fails or answers oddly denies. */
  private async consultGates(pending: Pending, policyDecision: 'allow' | 'ask', signal: AbortSignal): Promise<GateVerdict> {
    const { subject, request } = pending;
    // No gates (the usual run): nothing to wait for, so no listener to add and remove per request.
    if (this.options.gates.length === 0) {
      if (signal.aborted) throw cancelled(subject, request);
      return { decision: 'continue' };
    }
    const verdicts = this.options.gates.map(async (gate): Promise<GateVerdict> => {
      try {
        const answer = await gate.evaluate(Object.freeze({ ...subject, request, policyDecision }), signal);
        if (answer.decision === 'continue') return { decision: 'continue' };
        const reason = answer.decision === 'deny' && typeof answer.reason === 'string' ? answer.reason : 'malformed answer';
        return { decision: 'deny', reason, hook: gate.name };
      } catch (cause) {
        return { decision: 'deny', reason: `the gate failed: ${messageOf(cause)}`, hook: gate.name };
      }
    });
    let all: GateVerdict[];
    try {
      all = await raceAbort(Promise.all(verdicts), signal);
    } catch {
      throw cancelled(subject, request);
    }
    if (signal.aborted) throw cancelled(subject, request);
    return all.find((verdict) => verdict.decision === 'deny') ?? { decision: 'continue' };
  }

  /** Records a denial and returns its error, for the caller to throw. */
  private deny(pending: Pending, decider: Decider, error: ToolError): ToolError {
    this.record(pending, 'deny', decider);
    return error;
  }

  private record({ subject, request, seq }: Pending, result: 'allow' | 'deny', decider: Decider): void {
    this.audit.add({ seq, class: request.class, result, decider });
    this.options.emit(subject.callId, {
      type: 'approval_decided',
      stepId: subject.stepId ?? subject.callId,
      request: seq,
      class: request.class,
      ...hostOf(request),
      result,
      decider,
    });
  }
}

/** What an approval event names of a network request: its host and port, so a refused host can be told from the events alone. */
function hostOf(request: CapabilityRequest): { host?: string } {
  return request.class === 'network' ? { host: hostWithPort(request.hostname, request.port) } : {};
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
