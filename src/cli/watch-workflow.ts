import path from 'node:path';
import { watch } from 'chokidar';
import { interruptReason } from '../host/tool-host.js';
import type { CliEnvironment } from './environment.js';
import { reportStartupError } from './startup-errors.js';
import { runWorkflowCommand, type RunRequest, type RunStreams } from './run-workflow.js';
import { resolveWatchTargets } from './watch-targets.js';

/** Changes closer together than this start one run. */
export const watchDebounceMs = 150;

/** Why a run was stopped by a watch: a newer change makes it stale. */
const changedReason = 'changed';

interface CurrentRun {
  controller: AbortController;
  done: Promise<number>;
}

/**
 * `rho run --watch`: runs the workflow, then again after each change (debounced), cancelling a
 * run still in progress (its processes are killed, as on an interrupt). Each run opens with a
 * separator line. Ctrl-C (or SIGTERM) stops the run in progress and exits 130.
 */
export async function watchWorkflowCommand(request: RunRequest, environment: CliEnvironment, streams: RunStreams): Promise<number> {
  let targets;
  try {
    targets = await resolveWatchTargets(request.file, request.choices, process.cwd());
  } catch (error) {
    return reportStartupError(error, (line) => streams.stderr.write(`${line}\n`));
  }
  // The separator goes where a person reads: stdout, unless stdout carries NDJSON events.
  const say = (line: string) => (request.output === 'json' ? streams.stderr : streams.stdout).write(`${line}\n`);
  const watcher = watch(targets.root, { ignoreInitial: true, ignored: (absolute) => targets.ignored(absolute) });
  await new Promise<void>((resolve, reject) => watcher.once('ready', resolve).once('error', reject));

  let runs = 0;
  let current: CurrentRun | undefined;
  let timer: NodeJS.Timeout | undefined;
  let changed: string[] = [];
  let exiting = false;
  let restarts = Promise.resolve();
  const start = (because: string) => {
    runs += 1;
    say(`── rho watch: run ${runs} (${because}) ${'─'.repeat(20)}`);
    const controller = new AbortController();
    const run: CurrentRun = { controller, done: runWorkflowCommand(request, environment, streams, controller.signal) };
    current = run;
    void run.done.then((code) => {
      if (current !== run || exiting) return;
      current = undefined;
      say(`── rho watch: run ${runs} ended with exit ${code}; waiting for changes (Ctrl-C stops)`);
    });
  };
  const restart = async () => {
    if (changed.length === 0) return;
    const files = [...new Set(changed)];
    changed = [];
    const running = current;
    current = undefined;
    if (running) {
      say(`── rho watch: ${files[0]} changed; stopping run ${runs}`);
      running.controller.abort(changedReason);
      await running.done;
    }
    if (!exiting) start(`${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''} changed`);
  };
  watcher.on('all', (_event, absolute) => {
    if (exiting || !targets.triggers(absolute)) return;
    changed.push(path.relative(targets.root, absolute).split(path.sep).join('/'));
    clearTimeout(timer);
    // One restart at a time: a change during a restart waits for it, then starts the next run.
    timer = setTimeout(() => (restarts = restarts.then(restart)), watchDebounceMs);
  });

  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = () => {
      signals += 1;
      if (signals > 1) process.exit(130);
      exiting = true;
      clearTimeout(timer);
      const running = current;
      running?.controller.abort(interruptReason);
      void (running?.done ?? Promise.resolve(130)).finally(async () => {
        await watcher.close();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolve(130);
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    start('first run');
  });
}
