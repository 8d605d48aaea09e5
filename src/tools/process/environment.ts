import type { EnvMode } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { isInheritedByDefault } from './inherited-env.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Names that carry credentials by convention (matched case-insensitively): provider API keys,
 * tokens, secrets, passwords and passphrases (`*_PW`, `*_PWD` too), private keys, inline
 * kubeconfigs, webhooks (their URL is the credential), cookies,
 * connection strings, credential files, agent sockets that sign with a person's keys, and every
 * AWS variable. A child process never inherits one of these; a workflow passes one explicitly
 * through `secrets:`.
 */
const credentialPatterns: readonly RegExp[] = [
  /(^|_)(API_?KEYS?|APIKEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|KEYS?)$/,
  /(^|_)(TOKEN|AUTHTOKEN|PAT|JWT)$/,
  /(^|_)AUTH(_|$)/,
  /(^|_)(SECRET|CREDENTIAL)/,
  /PASS/,
  /_PWD?$/,
  /(^|_)(RSA|DSA|ECDSA|ED25519)(_|$)/,
  /KUBE_?CONFIG_DATA/,
  /WEBHOOK/,
  /COOKIE/,
  /CONNECTION_?STRING/,
  /^(SSH_AUTH_SOCK|GPG_AGENT_INFO)$/,
  /^AWS_/,
];

/** A URL with user info (`postgres://app:pw@db/main`, `https://TOKEN@host`): the value itself is a credential. */
const userInfoUrl = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i;

export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return credentialPatterns.some((pattern) => pattern.test(upper));
}

/** Whether a variable carries a credential, by its name or by its value (a URL holding user info, whatever its name). */
export function isCredentialVariable(name: string, value: string | undefined): boolean {
  return isCredentialName(name) || (value !== undefined && userInfoUrl.test(value.trim()));
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
    if (isCredentialVariable(name, value) && !allowed.has(name)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}

/**
 * The part of the host environment an env mode lets a child inherit (before scrubbing): the
 * default allowlist (`inherit`), less some names (`inherit_except`), every variable
 * (`inherit_all`), only the names listed (`inherit_only`), or nothing.
 */
function inheritedByMode(env: Environment, mode: EnvMode): Environment {
  switch (mode.mode) {
    case 'inherit':
      return Object.fromEntries(Object.entries(env).filter(([name]) => isInheritedByDefault(name)));
    case 'inherit_all':
      return env;
    case 'empty':
      return {};
    case 'inherit_except': {
      const excluded = new Set(mode.names);
      return Object.fromEntries(Object.entries(env).filter(([name]) => isInheritedByDefault(name) && !excluded.has(name)));
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
  const undeclared = Object.entries(stepEnv)
    .filter(([name, value]) => isCredentialVariable(name, value) && !secrets.has(name))
    .map(([name]) => name);
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

/**
 * The inherited part of a child's environment, scrubbed, per host environment and mode. The host
 * environment is read once per run and never changed (`HostEnvironment.env` is read-only), so
 * the same scrubbing was repeated for every process; each call still gets a copy of its own.
 */
const scrubbedInherited = new WeakMap<Environment, Map<string, Readonly<Record<string, string>>>>();

function inheritedScrubbed(hostEnv: Environment, mode: EnvMode): Readonly<Record<string, string>> {
  const key = 'names' in mode ? `${mode.mode}:${JSON.stringify(mode.names)}` : mode.mode;
  let byMode = scrubbedInherited.get(hostEnv);
  if (!byMode) scrubbedInherited.set(hostEnv, (byMode = new Map()));
  let scrubbed = byMode.get(key);
  if (!scrubbed) byMode.set(key, (scrubbed = scrubEnvironment(inheritedByMode(hostEnv, mode))));
  return scrubbed;
}

/** The one environment a child process gets: inherited per mode, scrubbed, then the step's own variables. */
export function composeEnvironment({ hostEnv, mode, stepEnv }: EnvironmentComposition): Record<string, string> {
  const composed = { ...inheritedScrubbed(hostEnv, mode) };
  for (const [name, value] of Object.entries(stepEnv)) {
    if (value !== undefined) composed[name] = value;
  }
  return composed;
}
