import { z } from 'zod';
import { defineBuiltinTool } from '../host/tool.js';
import { completionData } from './process/completion-data.js';
import { resolveExecutable } from './process/executable.js';
import { argumentText, defaultProcessTimeoutMs, launchOptionsShape, okExitCodesSchema } from './process/launch-options.js';
import { callWallLimitMs, executableSearch, planLaunch } from './process/launch-plan.js';
import { shellRequest } from './process/request.js';
import { runUntilExit } from './process/run-until-exit.js';

const shellArgs = () =>
  z.strictObject({
    script: argumentText().min(1).describe('Shell script text, run as `sh -c SCRIPT` (or bash)'),
    shell: z.enum(['sh', 'bash']).default('sh').describe('Which shell runs the script (looked up on PATH)'),
    ...launchOptionsShape(),
    ok_exit_codes: okExitCodesSchema(),
  });

export const shellTool = defineBuiltinTool({
  name: 'shell',
  description: 'Run a shell script with sh -c or bash -c (needs the shell rule: process rules never grant it), with bounded output',
  origin: 'built-in',
  data: completionData,
  classes: ['shell'],
  executionPolicy: 'resource-aware',
  timeoutMs: defaultProcessTimeoutMs,
  schema: shellArgs,
  async prepare(args, ctx) {
    const plan = await planLaunch(args, ctx);
    const executable = await resolveExecutable(args.shell, executableSearch(ctx, plan.cwd.canonical));
    const request = shellRequest({
      cwd: plan.cwd.canonical,
      executable,
      // The shell's own arguments, kept apart from the script text.
      argv: ['-c'],
      shell: args.shell,
      script: args.script,
      envMode: plan.envMode,
      env: plan.stepEnv,
      outputLimitBytes: plan.outputLimitBytes,
      wallLimitMs: callWallLimitMs(args, ctx),
      ...(plan.stdinDigest !== undefined && { stdinDigest: plan.stdinDigest }),
    });
    return runUntilExit(request, plan, { label: `${args.shell} script`, stdin: args.stdin, okExitCodes: args.ok_exit_codes });
  },
});
