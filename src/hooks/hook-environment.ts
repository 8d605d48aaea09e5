import { scrubEnvironment, type Environment } from '../tools/process/environment.js';
import { trustedSearchPath } from '../tools/process/trusted-programs.js';

/**
 * The environment a hook program gets: the host's, scrubbed of credentials exactly as a
 * process step's is, without the workflow's declared secrets (a hook never needs them), and with
 * a PATH of trusted directories alone (`trustedSearchPath`): what a hook starts by name, or
 * through `#!/usr/bin/env node`, is never a program a step planted.
 */
export function hookEnvironment(hostEnv: Environment, secretNames: readonly string[]): Record<string, string> {
  const env = scrubEnvironment(hostEnv);
  for (const name of secretNames) delete env[name];
  env.PATH = trustedSearchPath();
  return env;
}
