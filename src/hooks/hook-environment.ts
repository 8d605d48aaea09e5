import { scrubEnvironment, type Environment } from '../tools/process/environment.js';

/**
 * The environment a hook program gets: the host's, scrubbed of credentials exactly as a
 * process step's is, and without the workflow's declared secrets (a hook never needs them).
 */
export function hookEnvironment(hostEnv: Environment, secretNames: readonly string[]): Record<string, string> {
  const env = scrubEnvironment(hostEnv);
  for (const name of secretNames) delete env[name];
  return env;
}
