import type { Approver } from '../host/approval.js';
import type { ScriptedDecision } from '../host/authorization.js';
import type { EnvMode } from '../host/capability.js';
import { networkConfinement, type CacheName, type SandboxStatus } from '../host/confinement/index.js';
import type { GrantHints } from '../host/denials.js';
import { hostFromSetup, openWorkspace, parseRuleTexts, type SetupReading } from '../host/create-host.js';
import { EnvGrants } from '../host/env-grants.js';
import type { PreToolGate } from '../host/gates.js';
import type { Questioner } from '../host/host-input.js';
import type { SecretMasker } from '../host/masking.js';
import { Policy } from '../host/policy.js';
import type { ToolRegistry } from '../host/registry.js';
import type { ToolHost, RunObserver } from '../host/tool-host.js';
import type { OutputOptions } from '../host/step-output.js';

/** A run's host as configured: the front end's choices and the workflow file's settings, resolved once. */
export interface HostConfig {
  root: string;
  grantedRoots: readonly string[];
  /** Rules as written: the file's, with the front end's joined to them; `askIfAllowed`: called files' ask rules, which only narrow. */
  rules: { allow: readonly string[]; ask: readonly string[]; deny: readonly string[]; askIfAllowed?: readonly string[] };
  approve: readonly string[];
  yes: boolean;
  secretNames: readonly string[];
  /** What processes may be given without their rule naming it: `policy.env`, and the `secrets:` and `host_env:` names (`EnvGrants`). */
  envGrants: { policy: readonly string[]; declared: readonly string[] };
  processEnv: EnvMode;
  /** The workflow's `env:`, evaluated: given to every process step. */
  processVariables: Readonly<Record<string, string>>;
  maxParallel: number;
  /** Whether processes are confined (probed once per run); unconfined when absent. */
  sandbox?: SandboxStatus;
  /** Home directories hidden from confined processes unless a rule grants them. */
  homeDirectories?: readonly string[];
  /** What `~` stands for in rules and `writes:`: the running user's home (undefined: there is none, and `~` is refused). */
  home?: string | undefined;
  /** The well-known caches processes may write (`policy.caches`). */
  caches?: readonly CacheName[];
  /** rho's own directories (`PrivateStore.paths`): no tool and no confined process reads or writes them. */
  privatePaths?: readonly string[];
}

/** The people and programs a front end plugs into a host: who decides, who is asked, who watches. */
export interface HostPorts {
  /** The environment rho was started with: source of secrets and of inherited process variables. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  approver?: Approver;
  /** Receives every decision `--approve`/`--yes` made, so the output can echo it. */
  onScriptedDecision?: (decision: ScriptedDecision) => void;
  questioner?: Questioner;
  gates?: readonly PreToolGate[];
  grantHints?: GrantHints;
  redact?: (text: string) => string;
  /** The run's secrets, for tools that mask output at its source, before cutting it (see HostEnvironment). */
  masker?: SecretMasker;
  onWarning?: (message: string) => void;
  observer?: RunObserver;
  /** How much of each step's output its events carry, and where all of it is kept. */
  output?: OutputOptions;
}

/** Builds a ToolHost from its configuration, through the library's one host builder. */
export async function buildHost(config: HostConfig, ports: HostPorts, tools: ToolRegistry): Promise<ToolHost> {
  const { home } = config;
  // A bad root or rule on the command line or in the file is a usage error, in the rule's own words.
  const reading: SetupReading = { kind: 'usage', namesOption: false, home };
  const workspace = await openWorkspace(config.root, { grantedRoots: config.grantedRoots, privatePaths: config.privatePaths ?? [] }, reading.kind);
  const parseRules = (rules: readonly string[]) => parseRuleTexts(rules, { kind: reading.kind }, home);
  const policy = new Policy(
    {
      allow: parseRules(config.rules.allow),
      ask: parseRules(config.rules.ask),
      deny: parseRules(config.rules.deny),
      askIfAllowed: parseRules(config.rules.askIfAllowed ?? []),
    },
    new EnvGrants(config.envGrants.policy, config.envGrants.declared),
  );
  // Confined processes reach network(HOST) hosts only through this run's proxy, ended with the run.
  // Loaded only when the policy's network rules call for it: it brings node:http.
  const needsProxy = config.sandbox?.confined === true && networkConfinement(policy).mode === 'proxy';
  const networkProxy = needsProxy ? new (await import('../tools/process/network-proxy/run-proxy.js')).RunNetworkProxy({ masker: ports.masker }) : undefined;
  const host = await hostFromSetup(
    {
      workspace,
      policy,
      tools,
      approve: config.approve,
      yes: config.yes,
      maxParallel: config.maxParallel,
      environment: {
        env: ports.hostEnv,
        secretNames: config.secretNames,
        processEnv: config.processEnv,
        processVariables: config.processVariables,
        ...(ports.masker && { masker: ports.masker }),
        ...(config.sandbox && { sandbox: config.sandbox }),
        ...(config.homeDirectories && { homeDirectories: config.homeDirectories }),
        ...(home !== undefined && { home }),
      },
      ...(config.caches && { caches: config.caches }),
      ...(ports.onScriptedDecision && { onScriptedDecision: ports.onScriptedDecision }),
      ...(ports.approver && { approver: ports.approver }),
      ...(ports.questioner && { questioner: ports.questioner }),
      ...(ports.gates && { gates: ports.gates }),
      ...(ports.grantHints && { grantHints: ports.grantHints }),
      ...(ports.redact && { redact: ports.redact }),
      ...(ports.onWarning && { onWarning: ports.onWarning }),
      ...(ports.observer && { observer: ports.observer }),
      ...(networkProxy && { networkProxy }),
      ...(ports.output && { output: ports.output }),
    },
    reading,
  );
  if (networkProxy) host.session.onDispose(() => networkProxy.close());
  return host;
}
