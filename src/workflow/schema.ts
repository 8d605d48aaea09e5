import { z } from 'zod';
import { hooksConfigSchema } from '../hooks/config.js';
import { sandboxModes } from '../host/confinement/modes.js';
import { envGrantPattern } from '../host/env-grants.js';
import { cacheNames } from '../host/confinement/toolchains.js';
import { assertionAlgorithms, defaultAssertionAlgorithm } from '../tools/mcp/auth/assertion-algorithms.js';
import { prototypeKeyReason, prototypeKeys } from '../host/prototype-keys.js';
import { durationPattern } from './duration.js';
import { matrixSchema } from './matrix.js';
import { platformNames } from './platforms.js';
import { toToolStep, withDerivedIds } from './short-steps.js';

/** Step ids: lower case, digits, `_` and `-`; usable as `steps.<id>` in expressions. */
export const stepIdPattern = /^[a-z0-9][a-z0-9_-]*$/;
const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Task names: what `rho run FILE TASK` takes; `:` and `.` allow the `build:web` style of task
 * runners, and a leading `_` makes a task private (as in `just`).
 */
export const taskNamePattern = /^_?[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const taskNameMessage = 'task names use letters, digits, _ . : and -, starting with a letter or digit (or one _, for a private task)';

const duration = z
  .union([z.string().regex(durationPattern, 'expected a duration such as 500ms, 90s, 5m or 1h'), z.number().positive()])
  .describe('A duration: 500ms, 90s, 5m, 1h, or a number of seconds');

const stepId = z.string().regex(stepIdPattern, 'step ids use lower case letters, digits, _ and -, starting with a letter or digit');

export const inputTypes = ['string', 'number', 'boolean', 'choice', 'array'] as const;

/** The input that receives what follows `--` on the command line (`rho run FILE TASK -- ARGS`). */
export const passThroughInput = 'args';

/**
 * A workflow input. Without `-i NAME=VALUE` an input takes its `default`; an input with
 * `required: true` must be given (it has no default); an optional input without a default that
 * is not given is null in expressions (falsy, and "" when interpolated into text). An array input
 * takes one item for each `-i NAME=VALUE`.
 */
const input = z
  .strictObject({
    type: z
      .enum(inputTypes)
      .default('string')
      .describe(
        'string, number, boolean, choice (one of options), or array (a list of strings, one per -i NAME=VALUE; an input named args receives what follows -- on the command line)',
      ),
    required: z.boolean().optional().describe('Must be given with -i NAME=VALUE (default false)'),
    default: z
      .union([z.string(), z.number(), z.boolean(), z.array(z.string().max(65_536)).max(10_000)])
      .optional()
      .describe('Used when the input is not given; must have the declared type'),
    options: z.array(z.string().min(1).max(200)).min(1).max(100).optional().describe('The values a choice input accepts'),
    description: z.string().max(1000).optional(),
    untrusted: z
      .boolean()
      .optional()
      .describe('The value comes from outside the workflow’s author (an issue title, a form): it may never be written into a shell script or a command'),
  })
  .superRefine((declaration, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (declaration.type === 'choice') {
      if (!declaration.options) issue('type', 'a choice input lists its values under options:');
      else if (new Set(declaration.options).size !== declaration.options.length) issue('options', 'options are listed once each');
    } else if (declaration.options) {
      issue('options', `options: belongs to a choice input (this one is a ${declaration.type})`);
    }
    if (declaration.default === undefined) return;
    if (declaration.required) issue('default', 'a required input has no default (drop one of them)');
    if (declaration.type === 'array') {
      if (!Array.isArray(declaration.default)) issue('default', `the default ${JSON.stringify(declaration.default)} is not a list of strings`);
      return;
    }
    const expected = declaration.type === 'choice' ? 'string' : declaration.type;
    if (typeof declaration.default !== expected) {
      issue(
        'default',
        `the default ${JSON.stringify(declaration.default)} is not a ${declaration.type}${typeof declaration.default === 'string' && expected !== 'string' ? ' (write it without quotes)' : ''}`,
      );
    } else if (declaration.type === 'choice' && declaration.options && !declaration.options.includes(declaration.default as string)) {
      issue('default', `the default "${declaration.default}" is not one of the options (${declaration.options.join(', ')})`);
    }
  });

type Declared = z.output<typeof input>;

/**
 * An input written short: its default, whose type it takes (`who: world`, `jobs: 4`,
 * `files: [a, b]`), or nothing (`name:`), a string that must be given, as a `just` parameter
 * without a default.
 */
function shortInput(value: string | number | boolean | string[] | null | Declared): Declared {
  if (value === null) return { type: 'string', required: true };
  if (Array.isArray(value)) return { type: 'array', default: value };
  if (typeof value === 'object') return value;
  return { type: typeof value as 'string' | 'number' | 'boolean', default: value };
}

const inputs = z.record(
  z
    .string()
    .regex(identifierPattern, 'input names are identifiers')
    .refine((name) => !prototypeKeys.has(name), `this input name cannot be used: ${prototypeKeyReason}`),
  z
    .union([input, z.string().max(65_536), z.number(), z.boolean(), z.array(z.string().max(65_536)).max(10_000), z.null()])
    .transform(shortInput)
    .describe(
      '{ type, default, required, options, description, untrusted }, or short: its default (who: world, files: [a, b]), or nothing (name:) for a string that must be given',
    ),
);

const processEnv = z.union([
  z.enum(['inherit', 'inherit_all', 'empty']),
  z.strictObject({ inherit_except: z.array(z.string().regex(identifierPattern, 'variable names are identifiers')).max(1000) }),
  z.strictObject({ inherit_only: z.array(z.string().regex(identifierPattern, 'variable names are identifiers')).max(1000) }),
]);

const ruleList = z.array(z.string().min(1).max(4096)).max(10_000);

const policy = z.strictObject({
  allow: ruleList.optional(),
  ask: ruleList.optional(),
  deny: ruleList.optional(),
  granted_roots: z
    .array(z.string().min(1).max(4096))
    .max(100)
    .optional()
    .describe('Directories outside the workspace that paths may name (with the outside rule); relative to the file, ~ is your home'),
  caches: z
    .array(z.enum(cacheNames))
    .max(cacheNames.length)
    .optional()
    .describe('Tools whose caches under your home confined processes may write (npm, cargo, go, pip, uv…), where the tool’s own variable puts them'),
  process_env: processEnv
    .optional()
    .describe(
      'inherit (default): the host variables on rho’s allowlist (PATH, HOME, locale, terminal, CI, toolchains); inherit_all: every host variable but credentials; empty; {inherit_only: [...]}; {inherit_except: [...]} (the allowlist less these)',
    ),
  env: z
    .array(z.string().regex(envGrantPattern, 'a variable name, or a prefix and * (APP_*)'))
    .max(1000)
    .optional()
    .describe(
      'Variables any process may be given, whatever their value: names, or a prefix and * (APP_*). A variable that changes what a program runs is granted in that program’s process rule instead',
    ),
  sandbox: z
    .enum(sandboxModes)
    .optional()
    .describe('auto (default): confine processes where bubblewrap works, else run them unconfined and say so; required: refuse to run unconfined (exit 2); off: never confine'),
});

const serverName = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'server names use lower case letters, digits, _ and -, starting with a letter or digit');

/** Header names that carry credentials: their values may only come from `secrets:`. */
const credentialHeaderName = /^(authorization|proxy-authorization|cookie)$|api[-_]?key|token|secret|password|auth/i;
const secretExpression = /^\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/;

/** Why a credential header's value is refused: it must be built from `${{ secrets.NAME }}` alone (plus text such as `Bearer `). */
function credentialValueProblem(value: string): string | undefined {
  const expressions = value.match(/\$\{\{.*?\}\}/gs) ?? [];
  if (expressions.length === 0) return 'takes its value from secrets: write it as "Bearer ${{ secrets.NAME }}" and declare NAME under secrets:';
  if (expressions.some((expression) => !secretExpression.test(expression))) return 'may only use ${{ secrets.NAME }} expressions';
  return undefined;
}

const httpHeaders = z
  .record(z.string().min(1).max(256), z.string().max(8192))
  .refine((headers) => Object.keys(headers).length <= 100, 'at most 100 headers')
  .superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      const problem = credentialHeaderName.test(name) ? credentialValueProblem(value) : undefined;
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: `header ${name} carries credentials and ${problem}` });
    }
  });

/** A value that is a secret: `${{ secrets.NAME }}` and nothing else, so that it is masked and never written in the file. */
const secretValue = z.string().regex(secretExpression, 'takes its value from secrets: write it as "${{ secrets.NAME }}" and declare NAME under secrets:');

/** An ID token is a bearer credential: it goes over HTTPS, or over plain HTTP to this machine alone. */
function isSafeTokenEndpoint(text: string): boolean {
  const url = new URL(text);
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

/** Cross-app access (SEP-990): the organisation's identity provider, where rho exchanges the ID token it holds for the grant. */
const identityProvider = z
  .strictObject({
    token_endpoint: z
      .url()
      .max(8192)
      .refine(isSafeTokenEndpoint, 'an https URL (http only for localhost, 127.0.0.1 or [::1])')
      .describe('The identity provider’s token endpoint, where the ID token is exchanged for an authorization grant (RFC 8693)'),
    client_id: z.string().min(1).max(4096).describe('rho’s client at the identity provider (a value, or ${{ secrets.NAME }})'),
    client_secret: secretValue.optional().describe('That client’s secret (client_secret_basic), from ${{ secrets.NAME }}; without it the client is public'),
    id_token: secretValue.describe('The ID token the identity provider issued (an OpenID Connect ID token), from ${{ secrets.NAME }}'),
  })
  .describe('Exchange an ID token from the organisation’s identity provider for the grant (cross-app access, SEP-990), instead of client credentials');

/**
 * How a run of an HTTP server is authorized without a person: the client-credentials grant (the
 * MCP extension SEP-1046), or with `identity_provider`, cross-app access (SEP-990).
 */
const clientCredentials = z
  .strictObject({
    client_id: z.string().min(1).max(4096).describe('The client registered with the authorization server (a value, or ${{ secrets.NAME }})'),
    client_secret: secretValue.optional().describe('client_secret_basic: the client secret, from ${{ secrets.NAME }}'),
    private_key: secretValue.optional().describe('private_key_jwt: the client’s PKCS#8 PEM private key, from ${{ secrets.NAME }}'),
    algorithm: z
      .string()
      .refine((name) => (assertionAlgorithms as readonly string[]).includes(name), `one of ${assertionAlgorithms.join(', ')}`)
      .optional()
      .describe(`The algorithm private_key signs with: ${assertionAlgorithms.join(', ')} (default ${defaultAssertionAlgorithm})`),
    scope: z.string().min(1).max(4096).optional().describe('Scopes to ask for, space-separated'),
    issuer: z.url().max(8192).optional().describe('The authorization server the credentials belong to: they are presented to no other'),
    identity_provider: identityProvider.optional(),
  })
  .superRefine((entry, ctx) => {
    if ((entry.client_secret === undefined) === (entry.private_key === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give client_secret (client_secret_basic) or private_key (private_key_jwt), one of them' });
    }
    if (entry.algorithm !== undefined && entry.private_key === undefined) ctx.addIssue({ code: 'custom', path: ['algorithm'], message: 'algorithm goes with private_key' });
  });

const toolSource = z.union([
  z.strictObject({ module: z.string().min(1).max(4096) }),
  z.strictObject({
    mcp: z.union([
      z.strictObject({
        name: serverName,
        command: z.array(z.string().min(1)).min(1),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
        cwd: z.string().optional(),
      }),
      z.strictObject({
        name: serverName,
        url: z.string().min(1).max(8192).describe('A Streamable HTTP endpoint (http or https); connecting is a network(HOST) request'),
        headers: httpHeaders.optional().describe('Sent with every request; credential headers only from ${{ secrets.NAME }}'),
        oauth: clientCredentials
          .optional()
          .describe(
            'Client credentials (the client-credentials grant, or with identity_provider an ID token exchanged for a grant), for runs nobody signs in to (instead of `rho mcp login`)',
          ),
      }),
    ]),
  }),
]);

const retry = z
  .union([
    z.number().int().min(1).max(100),
    z.strictObject({
      attempts: z.number().int().min(1).max(100).describe('Most attempts in all, the first included'),
      delay: duration.optional().describe('Wait before the second attempt (default: none)'),
      backoff: z.number().min(1).max(10).optional().describe('Each later wait is the one before times this (default 1)'),
    }),
  ])
  .describe('Run a failed call again (never a denied or cancelled one): a number of attempts, or { attempts, delay, backoff }');

/** `defaults:` of a file or a task: what its steps get when they do not say. A task's win over the file's. */
const defaults = z.strictObject({
  timeout: duration.optional().describe('Per-call limit of every step (default: the tool’s own; 1h for exec and shell)'),
  cwd: z.string().min(1).max(4096).optional().describe('Working directory of every tool that has one (exec, shell, process_start), relative to the workspace'),
  continue_on_error: z.boolean().optional(),
  retry: retry.optional(),
  sequential: z.boolean().optional().describe('Run the steps of every task one after another, in order, whatever -j allows (a task’s own sequential: wins)'),
  writes: z
    .array(z.string().min(1).max(4096))
    .max(1000)
    .optional()
    .describe('Where the processes of every step that does not say write (as a step’s writes:), so tasks that write apart run side by side under -j'),
});

const resourceList = z.array(z.string().min(1).max(4096)).max(1000);

const globList = z.array(z.string().min(1).max(4096)).min(1).max(1000);

/** `uses:` of a step: a task of this file (`build`), or a task of another file (`./ci/test.yml`, `./ci/test.yml#unit`). */
export const usesPattern = /^(?:_?[A-Za-z0-9][A-Za-z0-9_.:-]*|\.\.?\/[^#\0]+?(?:#_?[A-Za-z0-9][A-Za-z0-9_.:-]*)?)$/;

const usesText = z.string().max(4096).regex(usesPattern, 'uses: names a task of this file (TASK) or of another one (./path/file.yml or ./path/file.yml#TASK)');

const platforms = z
  .array(z.enum(platformNames))
  .min(1)
  .max(platformNames.length)
  .describe('Where it runs: linux, macos, windows, freebsd, openbsd, unix (every one but windows); elsewhere it is skipped, saying why');

const envValues = z.record(z.string().regex(identifierPattern, 'variable names are identifiers'), z.union([z.string(), z.number(), z.boolean()]));

/** A command line of an `exec:` step, or a step that is one. */
const commandLine = z.string().min(1).max(65_536);

const stepObject = z.strictObject({
  id: stepId.optional().describe('Default: the program of exec:, shell for shell:, the tool of tool:, the task of uses: (cargo, cargo-2, … within the task)'),
  name: z.string().min(1).max(200).optional(),
  exec: commandLine
    .optional()
    .describe('Run a program: its command line, split into words as a shell splits them (quotes, backslash) but run without one; ${{ }} may appear in words'),
  shell: z
    .string()
    .min(1)
    .max(1024 * 1024)
    .optional()
    .describe('Run this script with sh (the shell tool)'),
  env: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('With exec: or shell: — extra environment variables of the process'),
  cwd: z.string().min(1).max(4096).optional().describe('With exec: or shell: — the working directory, relative to the workspace'),
  ok_exit_codes: z.array(z.number().int().min(0).max(255)).min(1).max(256).optional().describe('With exec: or shell: — the exit codes that count as success (default [0])'),
  tool: z.string().min(1).max(200).optional().describe('The tool this step calls (a step names exec:, shell:, tool: or uses:)'),
  uses: usesText
    .optional()
    .describe('Run a task as a nested group: TASK of this file, or ./path/file.yml[#TASK] relative to this file (its default task without #TASK); with: is its inputs'),
  with: z.record(z.string(), z.unknown()).optional().describe('The tool’s arguments, or with uses: the called task’s inputs'),
  needs: z.union([stepId, z.array(stepId)]).optional(),
  if: z.union([z.string().max(65_536), z.boolean()]).optional(),
  async: z.boolean().optional(),
  continue_on_error: z.boolean().optional(),
  timeout: duration.optional(),
  retry: retry.optional(),
  matrix: matrixSchema.optional(),
  platforms: platforms.optional(),
  fail_fast: z.boolean().optional().describe('With matrix: a failing cell stops the cells not yet started (default true)'),
  resources: z
    .strictObject({ shared: resourceList.optional(), exclusive: resourceList.optional() })
    .optional()
    .describe('Paths (globs end in /**) or owner:key names this step touches; replaces the tool’s own declaration for scheduling'),
  writes: z
    .array(z.string().min(1).max(4096))
    .max(1000)
    .optional()
    .describe('Where this step’s processes may write (globs as in write rules): narrows the policy’s writable roots, never widens them; [] writes nothing'),
  sources: globList
    .optional()
    .describe('Globs (relative to the workspace) of the files this step reads: with them, the step is skipped as up to date when nothing it depends on changed'),
  generates: globList.optional().describe('Globs (relative to the workspace) of the files this step writes: a step whose outputs are gone or changed runs again'),
});

/** `outputs:` of a task: what a step that `uses:` it reads as its data (`steps.ID.data.NAME`). */
const outputs = z
  .record(
    z
      .string()
      .regex(identifierPattern, 'output names are identifiers')
      .refine((name) => !prototypeKeys.has(name), `this output name cannot be used: ${prototypeKeyReason}`),
    z.string().max(65_536),
  )
  .refine((declared) => Object.keys(declared).length <= 1000, 'at most 1000 outputs')
  .describe('Values a calling step reads as its data: name → expression over this task’s steps and inputs');

/** One step: a command line (`- cargo build`, as `exec:`), or a step with its keys. */
export const stepSchema = z.union([commandLine, stepObject]).transform(toToolStep);

const steps = z.array(stepSchema).min(1, 'a task needs at least one step').max(100_000).transform(withDerivedIds);

const taskName = z.string().regex(taskNamePattern, taskNameMessage);

/** A named task: `rho run FILE NAME` runs its steps with the file's policy, hooks, tools and env. */
export const taskSchema = z.strictObject({
  description: z.string().max(10_000).optional(),
  aliases: z.array(taskName).min(1).max(100).optional().describe('Other names `rho run` takes for this task (f for format); rho list shows them beside it'),
  private: z.boolean().optional().describe('Hidden from rho list and completion, still run by name and by uses: (a name that starts with _ is private too)'),
  inputs: inputs.optional().describe('Its parameters, in order: rho run TASK VALUE... fills them (a last array input takes the rest), as do NAME=VALUE and -i NAME=VALUE'),
  needs: z
    .union([usesText, z.array(usesText).min(1).max(1000)])
    .optional()
    .describe('Tasks that finish before its steps start, each run as by uses: (once in a run for the same inputs)'),
  run: z.enum(['once', 'always']).optional().describe('once (default): used more than once in a run with the same inputs, it runs once; always: every use runs it'),
  platforms: platforms.optional(),
  env: envValues.optional().describe('Extra environment of its process steps (exec, shell, process_start); a step’s own env: wins'),
  writes: defaults.shape.writes.describe('Where its steps’ processes write: short for defaults: { writes: … }'),
  sources: globList.optional().describe('Globs of the files the whole task reads: with them, it is skipped as up to date when nothing it depends on changed'),
  generates: globList.optional().describe('Globs of the files the whole task writes: a task whose outputs are gone or changed runs again'),
  defaults: defaults.optional(),
  sequential: z.boolean().optional().describe('Run the steps one after another, in order, whatever -j allows'),
  outputs: outputs.optional(),
  steps,
});

/** A shared cache of steps' results (the Turborepo Remote Cache API); Turborepo's variables win over these. */
const remoteCache = z
  .union([
    z.literal(false),
    z.strictObject({
      api: z.string().min(1).max(2048).optional().describe('The cache server (http or https); TURBO_API wins over it'),
      team: z.string().min(1).max(200).optional().describe('The team (`team_…` is sent as teamId, anything else as slug); TURBO_TEAM wins over it'),
      read_only: z.boolean().optional().describe('Restore, never upload (also when TURBO_REMOTE_CACHE_READ_ONLY is true)'),
      timeout: duration.optional().describe('Limit of each request to the cache (default 30s); TURBO_REMOTE_CACHE_TIMEOUT (seconds) wins over it'),
    }),
  ])
  .describe('The remote cache steps with sources: restore their outputs from and upload them to; false turns it off. The token is TURBO_TOKEN, never in the file');
export type RemoteCacheSetting = z.infer<typeof remoteCache>;

/** The workflow file format (SPEC §2). The single source of the TypeScript types and `rho schema`. */
export const workflowSchema = z.strictObject({
  version: z.literal(1),
  name: z.string().min(1).max(200),
  description: z.string().max(10_000).optional(),
  workspace: z.string().min(1).max(4096).optional(),
  max_parallel: z.number().int().min(1).max(1024).optional(),
  inputs: inputs.optional(),
  env: envValues.optional(),
  env_file: z
    .union([z.string().min(1).max(4096), z.array(z.string().min(1).max(4096)).min(1).max(100)])
    .optional()
    .describe('KEY=VALUE files (dotenv format, relative to the workspace) loaded into env.*; env: wins over them'),
  secrets: z.array(z.string().regex(identifierPattern, 'secret names are identifiers')).max(100).optional(),
  host_env: z
    .array(z.string().regex(identifierPattern, 'variable names are identifiers'))
    .max(100)
    .optional()
    .describe('Host variables copied into env.* (and so to processes) by name; credentials must come through secrets:'),
  defaults: defaults.optional(),
  policy: policy.optional(),
  remote_cache: remoteCache.optional(),
  hooks: hooksConfigSchema.optional().describe('Hook programs for this workflow, as in a --hooks file'),
  tools: z.array(toolSource).max(100).optional(),
  steps: steps.optional().describe('The default task: what `rho run FILE` runs'),
  sequential: z.boolean().optional().describe('Run the top-level steps one after another, in order, whatever -j allows'),
  outputs: outputs.optional().describe('Outputs of the default task, for a step that uses this file'),
  tasks: z
    .record(
      taskName,
      z.union([steps, taskSchema]).transform((task): TaskFile => (Array.isArray(task) ? { steps: task } : task)),
    )
    .optional()
    .describe('Named tasks: `rho run FILE TASK`; a task that is a list is its steps'),
});

export type WorkflowFile = z.infer<typeof workflowSchema>;
export type StepFile = z.output<typeof steps>[number];
export type TaskFile = z.output<typeof taskSchema>;
export type StepDefaults = z.infer<typeof defaults>;
export type RetrySetting = z.infer<typeof retry>;
export type InputDeclaration = z.infer<typeof input>;
export type ProcessEnvSetting = z.infer<typeof processEnv>;
