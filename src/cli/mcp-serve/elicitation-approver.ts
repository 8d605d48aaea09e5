import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../host/approval.js';
import { requestFingerprint } from '../../host/fingerprint.js';
import { approvalHeader } from '../../ui/approver/index.js';

/** Sends one form elicitation to the client and returns its answer; rejects when it could not be asked. */
export type Elicit = (params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;

const choices = [
  { const: 'allow_once', title: 'Allow once' },
  { const: 'allow_session', title: 'Allow for this session' },
  { const: 'deny', title: 'Deny' },
] as const;

type Choice = (typeof choices)[number]['const'];

/**
 * Approvals answered by the person behind the MCP client, through a form elicitation that shows
 * the request as rho's approval prompt does. "Allow for this session" holds for identical
 * requests (the same fingerprint) until the server exits, in this run and later calls alike; it
 * is not offered for a tool whose approvals are never remembered. Anything but an accepted
 * choice (declined, cancelled, a failed request) is a denial.
 */
export class ElicitationApprover implements Approver {
  constructor(
    private readonly elicit: Elicit,
    /** Fingerprints allowed for the server's lifetime, shared by every call. */
    private readonly session: Set<string>,
    private readonly mask: (text: string) => string,
  ) {}

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const fingerprint = request.rememberable ? requestFingerprint(request.request, request.tool) : undefined;
    if (fingerprint !== undefined && this.session.has(fingerprint)) return 'allow_run';
    const offered = choices.filter((choice) => fingerprint !== undefined || choice.const !== 'allow_session');
    let result: ElicitResult;
    try {
      result = await this.elicit(
        {
          mode: 'form',
          message: this.mask(approvalHeader(request)),
          requestedSchema: {
            type: 'object',
            properties: { decision: { type: 'string', title: 'Allow this request?', oneOf: offered.map((choice) => ({ ...choice })) } },
            required: ['decision'],
          },
        },
        signal,
      );
    } catch {
      return 'deny';
    }
    const decision = result.action === 'accept' ? (result.content?.decision as Choice | undefined) : undefined;
    if (decision === 'allow_once') return 'allow_once';
    if (decision === 'allow_session' && fingerprint !== undefined) {
      this.session.add(fingerprint);
      return 'allow_run';
    }
    return 'deny';
  }
}
