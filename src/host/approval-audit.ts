import type { AuditRecord } from './events.js';

/** Most decisions one run keeps; older ones are dropped first (their sequence numbers show the gap). */
export const maxAuditRecords = 10_000;

/**
 * The ordered, bounded record of authorization decisions. It holds only what AuditRecord
 * allows — sequence, class, result and decider — so it can be shown and logged anywhere.
 */
export class ApprovalAudit {
  private readonly records: AuditRecord[] = [];

  add(record: AuditRecord): void {
    this.records.push({ seq: record.seq, class: record.class, result: record.result, decider: record.decider });
    if (this.records.length > maxAuditRecords) this.records.shift();
  }

  snapshot(): readonly AuditRecord[] {
    return this.records.map((record) => ({ ...record }));
  }
}
