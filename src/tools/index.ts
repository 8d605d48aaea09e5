import type { Tool } from '../host/tool.js';
import { httpRequestTool } from './http-request.js';
import { questionnaireTool } from './questionnaire.js';
import { loadSkillTool } from './load-skill.js';
import { discoverInstructionsTool } from './discover-instructions.js';
import { echoTool } from './echo.js';
import { readFileTool } from './read-file.js';
import { writeFileTool } from './write-file.js';
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { searchFilesTool } from './search-files.js';
import { execTool } from './exec.js';
import { processOutputTool } from './process-output.js';
import { processStartTool } from './process-start.js';
import { processStopTool } from './process-stop.js';
import { shellTool } from './shell.js';

/** Every built-in tool, in the order `rho tools` lists them. */
export function builtinTools(): Tool[] {
  return [
    echoTool,
    readFileTool,
    writeFileTool,
    editFileTool,
    listFilesTool,
    searchFilesTool,
    execTool,
    shellTool,
    processStartTool,
    processOutputTool,
    processStopTool,
    httpRequestTool,
    questionnaireTool,
    loadSkillTool,
    discoverInstructionsTool,
  ];
}
