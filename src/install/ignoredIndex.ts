// An installed-skills index that failed its check (forged, or an older one put back) on the operator's record:
// one audit line per revision, with why; the instance keeps serving what it served before.
import type { AuditLog } from '../approvals/index.ts';

export async function auditIgnoredIndex(audit: AuditLog, revision: string, why: string): Promise<void> {
  await audit.record({
    at: Date.now(),
    kind: 'integrity',
    worldId: 'defaults',
    chatId: '',
    skillId: 'installs-index',
    skillHash: '',
    items: [],
    requestedBy: 'store',
    outcome: 'ignored',
    reason: `the installed-skills index (revision ${revision}) is ignored: ${why}`,
  });
}
