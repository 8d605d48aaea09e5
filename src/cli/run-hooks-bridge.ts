import type { ToolErrorKind } from '../host/errors.js';
import { afterToolUseCapability } from '../host/hooks/capability-summary.js';
import type { HostLabels } from '../host/hooks/labels.js';
import { loadHooks, type LoadedHooks } from '../hooks/load-hooks.js';
import type { RunEvent } from '../host/events.js';
import type { RunHooks } from '../workflow/launch.js';
import type { CompiledWorkflow } from '../workflow/model.js';
import type { HookOptions } from './run-hooks.js';

/** Loads a run's hook programs and bridges them to the run: its events in, their gates out. */
export async function loadRunHooks(options: HookOptions, labels: HostLabels, workflow: CompiledWorkflow, runId: string): Promise<RunHooks> {
  const loaded = await loadHooks({
    ...(options.file !== undefined && { file: options.file }),
    inline: workflow.file.hooks,
    cwd: workflow.source.directory,
    env: options.env,
    secretNames: workflow.file.secrets ?? [],
    labels,
    runId,
    redact: (text) => options.masker.mask(text),
    onWarning: (message) => options.warn(`rho: hook warning: ${message}`),
  });
  return bridge(loaded, options.warn);
}

function bridge(loaded: LoadedHooks, warn: (line: string) => void): RunHooks {
  const tools = new Map<string, string>();
  const errorKinds = new Map<string, ToolErrorKind>();
  return {
    gates: loaded.gates,
    observeRun(event: RunEvent) {
      switch (event.type) {
        case 'run_started':
          for (const step of event.steps) tools.set(step.id, step.tool);
          return loaded.notify({ kind: 'session_started', workflow: event.workflow, workspaceRoot: event.workspace });
        case 'step_started':
          return loaded.notify({ kind: 'step_started', stepId: event.stepId, tool: event.tool });
        case 'step_finished':
          if (event.error) errorKinds.set(event.stepId, event.error.kind);
          return loaded.notify({
            kind: 'step_finished',
            stepId: event.stepId,
            tool: tools.get(event.stepId) ?? '',
            status: event.status,
            durationMs: event.durationMs,
            errorKind: event.error?.kind,
          });
        case 'run_finished': {
          const common = { exitCode: event.exitCode, durationMs: event.durationMs, counts: event.counts };
          if (event.exitCode === 0) return loaded.notify({ kind: 'run_completed', ...common });
          return loaded.notify({ kind: 'run_failed', ...common, failedStep: event.firstFailure, errorKind: event.firstFailure ? errorKinds.get(event.firstFailure) : undefined });
        }
        default:
          return;
      }
    },
    callFinished(call, result, authorized) {
      loaded.notify({
        kind: 'after_tool_use',
        stepId: call.stepId,
        result,
        capability: afterToolUseCapability(authorized ? [authorized] : [], true),
      });
    },
    async finish() {
      await loaded.finish();
      const summary = loaded.summary();
      for (const hook of summary.hooks) {
        if (hook.runs === 0) continue;
        warn(`rho: hook ${hook.name} (${hook.role}): ${hook.runs} run(s), mean ${Math.round(hook.meanMs)}ms, max ${Math.round(hook.maxMs)}ms${hook.failures ? `, ${hook.failures} failed` : ''}${hook.dropped ? `, ${hook.dropped} events dropped` : ''}`);
      }
    },
  };
}
