import { z } from 'zod';

/**
 * The `data` each built-in tool returns (a step's `steps.<id>.data`), as zod schemas: validation
 * warns about a reference to a field a tool never returns, `rho tools NAME` shows them, and
 * tests check the tools' real results against them.
 */
const processCompletion = z.object({
  exit_code: z.number().int().nullable().describe('null when a signal ended it'),
  stdout: z.string().describe('bounded by max_output_bytes'),
  stderr: z.string(),
  truncated: z.boolean(),
  timed_out: z.boolean(),
});

const backgroundStatus = {
  process_id: z.string(),
  state: z.enum(['running', 'exited', 'stopped', 'timed_out']),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
};

export const resultData = {
  echo: z.unknown().describe('the value, unchanged'),
  read_file: z.object({
    path: z.string(),
    content: z.string(),
    truncated: z.boolean(),
    next_offset: z.number().int().optional().describe('the line to read from next, when truncated'),
    media_type: z.string().optional().describe('for images'),
    bytes: z.number().int().optional().describe('for images'),
  }),
  write_file: z.object({ path: z.string(), bytes: z.number().int() }),
  edit_file: z.object({ path: z.string(), replacements: z.number().int() }),
  list_files: z.object({
    entries: z.array(z.object({ path: z.string(), type: z.string(), size: z.number().int().optional() })),
    truncated: z.boolean(),
  }),
  search_files: z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    truncated: z.boolean(),
  }),
  exec: processCompletion,
  shell: processCompletion,
  process_start: z.object({ process_id: z.string(), pid: z.number().int() }),
  process_output: z.object({
    ...backgroundStatus,
    stream: z.enum(['stdout', 'stderr']),
    content: z.string(),
    offset: z.number().int(),
    next_offset: z.number().int(),
    dropped_bytes: z.number().int(),
    matched: z.boolean().optional(),
  }),
  process_stop: z.object({ ...backgroundStatus, was_running: z.boolean() }),
  http_request: z.object({
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    truncated: z.boolean(),
    json: z.unknown().optional().describe('the body parsed, for a JSON response'),
  }),
  questionnaire: z.object({
    answers: z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())])),
    source: z.enum(['user', 'timeout_fallback']),
  }),
  load_skill: z.object({ name: z.string(), content: z.string() }),
  discover_instructions: z.object({ sources: z.array(z.object({ path: z.string(), content: z.string(), truncated: z.boolean() })) }),
} satisfies Record<string, z.ZodType>;
