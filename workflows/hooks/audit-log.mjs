#!/usr/bin/env node
// An [[observer]]: appends one JSON line per event to the audit log named by its first argument
// (relative to the directory of the file that declares the hook). Observers run off the run's
// path: a slow or failing observer is reported as a warning and never fails the run.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const logFile = path.resolve(process.argv[2] ?? 'rho-audit.log');
const envelope = JSON.parse(await readStdin());
const { payload } = envelope;

const facts = {
  session_started: () => ({ workflow: payload.workflow }),
  step_started: () => ({ step: payload.step_id, tool: payload.tool }),
  after_tool_use: () => ({
    step: payload.step_id,
    tool: payload.tool,
    status: payload.status,
    error: payload.error_kind,
    // The capability summary is what the policy and the gates saw: "run rm -rf build", "GET https://…".
    capability: payload.capability?.description ?? null,
  }),
  step_finished: () => ({ step: payload.step_id, status: payload.status }),
  run_completed: () => ({ exit_code: payload.exit_code, steps: payload.steps }),
  run_failed: () => ({ exit_code: payload.exit_code, failed_step: payload.failed_step, error: payload.error_kind }),
}[envelope.kind];

const line = { time: new Date().toISOString(), run_id: envelope.run_id, kind: envelope.kind, labels: envelope.host_labels, ...facts?.() };
mkdirSync(path.dirname(logFile), { recursive: true });
appendFileSync(logFile, `${JSON.stringify(line)}\n`);

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
