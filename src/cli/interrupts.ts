import { interruptReason } from '../host/tool-host.js';

/**
 * SIGINT/SIGTERM abort the run (running calls are cancelled and their processes killed); a
 * second signal forces the exit. The handlers stay until the process exits: a signal that
 * arrives while the run is being wound up forces the exit too, rather than killing rho through
 * the default handler, which would skip the exit-time cleanup of child processes.
 */
export function abortOnSignals(controller: AbortController, onForce: () => void): () => void {
  let received = 0;
  let runOver = false;
  const onSignal = () => {
    received++;
    if (received === 1 && !runOver) controller.abort(interruptReason);
    else onForce();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    runOver = true;
  };
}
