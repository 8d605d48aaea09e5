import type { EnvMode } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Names that carry credentials by convention (matched case-insensitively): provider API keys,
 * tokens, secrets, passwords, credential files, and every AWS variable. A child process never
 * inherits one of these; a workflow passes one explicitly through `secrets:`.
 */
const credentialPatterns: readonly RegExp[] = [
  /(^|_)(API_?KEY|APIKEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|KEY)$/,
  /(^|_)(TOKEN|AUTH|AUTHTOKEN|PAT|JWT)$/,
  /(^|_)(SECRET|PASSWORD|PASSWD|CREDENTIAL)/,
  /^AWS_/,
];

export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return credentialPatterns.some((pattern) => pattern.test(upper));
}

/**
 * The environment without credentials: every credential-like name is removed unless it is one
 * of `allowedSecretNames` (the workflow's `secrets:` a caller passes on purpose). Processes and
 * hook programs share this function so both get the same scrubbing.
 */
export function scrubEnvironment(env: Environment, allowedSecretNames: readonly string[] = []): Record<string, string> {
  const allowed = new Set(allowedSecretNames);
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isCredentialName(name) && !allowed.has(name)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}

/** The part of the host environment an env mode lets a child inherit (before scrubbing). */
function inheritedByMode(env: Environment, mode: EnvMode): Environment {
  switch (mode.mode) {
    case 'inherit':
      return env;
    case 'empty':
      return {};
    case 'inherit_except': {
      const excluded = new Set(mode.names);
      return Object.fromEntries(Object.entries(env).filter(([name]) => !excluded.has(name)));
    }
    case 'inherit_only': {
      const included = new Set(mode.names);
      return Object.fromEntries(Object.entries(env).filter(([name]) => included.has(name)));
    }
  }
}

/**
 * Checks a step's explicit `env`: a credential name must be one of the workflow's `secrets:`,
 * so its value is masked everywhere and the choice to pass it is visible in the workflow.
 */
export function validateStepEnvironment(stepEnv: Environment, secretNames: readonly string[]): void {
  const secrets = new Set(secretNames);
  const undeclared = Object.keys(stepEnv).filter((name) => isCredentialName(name) && !secrets.has(name));
  if (undeclared.length === 0) return;
  const list = undeclared.join(', ');
  throw new ToolError(
    'invalid_arguments',
    `env sets ${list}, which looks like a credential; declare it in the workflow's secrets: [${list}] and pass it as \${{ secrets.${undeclared[0]} }}`,
    { details: { names: undeclared } },
  );
}

export interface EnvironmentComposition {
  /** The host's environment (`HostEnvironment.env`). */
  hostEnv: Environment;
  mode: EnvMode;
  /** Variables the step sets explicitly; they win over inherited ones and are never scrubbed. */
  stepEnv: Environment;
}

/** The one environment a child process gets: inherited per mode, scrubbed, then the step's own variables. */
export function composeEnvironment({ hostEnv, mode, stepEnv }: EnvironmentComposition): Record<string, string> {
  const composed = scrubEnvironment(inheritedByMode(hostEnv, mode));
  for (const [name, value] of Object.entries(stepEnv)) {
    if (value !== undefined) composed[name] = value;
  }
  return composed;
}
