import { z } from 'zod';
import { defineBuiltinTool } from '../host/tool.js';
import { completionData } from './process/completion-data.js';
import { commandShape, defaultProcessTimeoutMs, launchOptionsShape, okExitCodesSchema } from './process/launch-options.js';
import { callWallLimitMs, planDirectProcess } from './process/launch-plan.js';
import { runUntilExit } from './process/run-until-exit.js';

const execArgs = () =>
  z.strictObject({
    ...commandShape(),
    ...launchOptionsShape(),
    ok_exit_codes: okExitCodesSchema(),
  });

export const execTool = defineBuiltinTool({
  name: 'exec',
  description: 'Run a program directly with an argument vector (no shell), with bounded output, in its own process group',
  origin: 'built-in',
  data: completionData,
  classes: ['process'],
  executionPolicy: 'resource-aware',
  timeoutMs: defaultProcessTimeoutMs,
  schema: execArgs,
  async prepare(args, ctx) {
    const { plan, request } = await planDirectProcess(args, ctx, callWallLimitMs(args, ctx));
    return runUntilExit(request, plan, { label: args.command, stdin: args.stdin, okExitCodes: args.ok_exit_codes });
  },
});
