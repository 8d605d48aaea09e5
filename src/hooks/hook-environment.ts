import { composeEnvironment, type Environment } from '../tools/process/environment.js';
import { trustedSearchPath } from '../tools/process/trusted-programs.js';

/**
 * The environment a hook program gets: what a process step inherits by default (the host
 * variables on the allowlist, credentials removed), never the workflow's declared secrets (a
 * hook never needs them), and a PATH of trusted directories alone (`trustedSearchPath`): what a
 * hook starts by name, or through `#!/usr/bin/env node`, is never a program a step planted.
 */
export function hookEnvironment(hostEnv: Environment, secretNames: readonly string[]): Record<string, string> {
  const env = composeEnvironment({ hostEnv, mode: { mode: 'inherit' }, stepEnv: {} });
  for (const name of secretNames) delete env[name];
  env.PATH = trustedSearchPath();
  return env;
}
