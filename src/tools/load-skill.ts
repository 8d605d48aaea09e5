import { z } from 'zod';
import { ToolError } from '../host/errors.js';
import { shared } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { readBoundedText } from './instructions/read-text.js';
import { resolveSkillFile, skillFilePath, skillNamePattern } from './instructions/skill-file.js';

export const maxSkillBytes = 256 * 1024;

const loadSkillArgs = () =>
  z.strictObject({
    name: z.string().regex(skillNamePattern, 'a skill name is 1-64 lower-case letters, digits or "-", not starting with "-"'),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const loadSkillData = () => z.object({ name: z.string(), content: z.string() });

export const loadSkillTool = defineBuiltinTool({
  name: 'load_skill',
  description: 'Read a skill from .agents/skills/<name>/SKILL.md in the workspace. Needs skill(NAME); ' + 'a skill grant does not grant ordinary reads.',
  origin: 'built-in',
  data: loadSkillData,
  classes: ['skill'],
  executionPolicy: 'resource-aware',
  schema: loadSkillArgs,
  async prepare(args, ctx) {
    const resolved = await resolveSkillFile(ctx.workspace, args.name);
    return {
      requests: [{ class: 'skill', name: args.name, path: resolved }],
      resources: [shared({ kind: 'path', path: resolved.canonical })],
      summary: `load skill ${args.name}`,
      async execute(execution) {
        const checked = await execution.workspace.revalidate(resolved);
        const { text, truncated } = await readBoundedText(checked, maxSkillBytes);
        if (truncated) throw new ToolError('execution_failed', `skill ${args.name}: ${skillFilePath(args.name)} is over ${maxSkillBytes} bytes`);
        return { text, data: { name: args.name, content: text }, metadata: { path: skillFilePath(args.name) } };
      },
    };
  },
});
