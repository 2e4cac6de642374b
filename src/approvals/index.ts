// Approvals: the one entry to the module that decides whether skill code may run. Outside this folder, code
// imports from here only (lint enforces it): the runtime that asks people (ApprovalRuntime), the gate every run
// passes (authorize), the session grants, the audit trail and the sealed records they rest on.
export * from './approvalBus.ts';
export * from './approvalRecord.ts';
export * from './approvals.ts';
export * from './approvedContent.ts';
export * from './audit.ts';
export * from './commands.ts';
export * from './decisionLog.ts';
export * from './gate.ts';
export * from './grants.ts';
export * from './recordSeal.ts';
export * from './stopApprovals.ts';
export * from './storeApprovalBus.ts';
export * from './types.ts';
