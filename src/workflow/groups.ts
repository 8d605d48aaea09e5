import type { StepStatus } from '../host/events.js';
import type { MatrixCell } from './matrix.js';

interface MemberRecord {
  status: StepStatus;
  data: unknown;
}

/**
 * A group's status from its members' (a matrix's cells, a called task's steps): denied if any
 * was denied, else failed if any failed, else cancelled or interrupted if any was, else skipped
 * if every one was (or there were none), else success. Its data lists each member's matrix
 * values, status and data.
 */
export function groupRecord(
  members: readonly { record: MemberRecord; matrix: MatrixCell | undefined }[],
  noun: 'cells' | 'steps' = 'cells',
): { status: StepStatus; data: unknown; reason?: string } {
  const statuses = new Set(members.map((member) => member.record.status));
  const data = members.map(({ record, matrix }) => ({ matrix: matrix ?? {}, status: record.status, data: record.data }));
  const count = (status: StepStatus) => members.filter((member) => member.record.status === status).length;
  if (statuses.has('denied')) return { status: 'denied', data, reason: `${count('denied')} of ${members.length} ${noun} denied` };
  if (statuses.has('failure')) return { status: 'failure', data, reason: `${count('failure')} of ${members.length} ${noun} failed` };
  if (statuses.has('cancelled')) return { status: 'cancelled', data };
  if (statuses.has('interrupted')) return { status: 'interrupted', data };
  if (members.length === 0) return { status: 'skipped', data, reason: 'no cell matches --matrix' };
  if (statuses.size === 1 && statuses.has('skipped')) return { status: 'skipped', data, reason: `every ${noun === 'cells' ? 'cell' : 'step'} was skipped` };
  return { status: 'success', data };
}
