import { interruptReason } from '../../host/tool-host.js';

/**
 * SIGINT/SIGTERM abort the run (running calls are cancelled and their processes killed); a
 * second signal exits at once with 130.
 */
export function abortOnSignals(controller: AbortController, onForce: () => void): () => void {
  let received = 0;
  const onSignal = () => {
    received++;
    if (received === 1) controller.abort(interruptReason);
    else onForce();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
