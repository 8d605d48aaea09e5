import type { Command } from '@oclif/core';
import Autocomplete from './autocomplete.js';
import HooksSchema from './hooks/schema.js';
import HooksTest from './hooks/test.js';
import HelpCommand from './help.js';
import Init from './init.js';
import Invoke from './invoke.js';
import List from './list.js';
import Matrix from './matrix.js';
import McpLogin from './mcp/login.js';
import McpServe from './mcp/serve.js';
import Plan from './plan.js';
import Run from './run.js';
import Schema from './schema.js';
import Tools from './tools.js';
import Validate from './validate.js';

/**
 * Every command, for oclif's explicit discovery: one import instead of a directory scan. Each
 * command loads what its `run()` needs only when it runs, so listing them all stays cheap.
 */
export const COMMANDS: Record<string, Command.Class> = {
  autocomplete: Autocomplete,
  'hooks:schema': HooksSchema,
  'hooks:test': HooksTest,
  help: HelpCommand,
  init: Init,
  invoke: Invoke,
  list: List,
  matrix: Matrix,
  'mcp:login': McpLogin,
  'mcp:serve': McpServe,
  plan: Plan,
  run: Run,
  schema: Schema,
  tools: Tools,
  validate: Validate,
};
