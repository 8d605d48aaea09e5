import { z } from 'zod';
import { defaultOutputLimitBytes, maxOutputLimitBytes } from './output-capture.js';

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const withoutNul = (text: string) => !text.includes('\0');
/** Longest single argument or environment value. */
const maxTextBytes = 128 * 1024;
/**
 * The wall limit of a process that runs to completion (`exec`, `shell`) when its step sets none:
 * an hour, long enough for a real build or test suite (the 30 s other tools get would kill
 * one), short enough that a hung process does not hold a machine for GitHub's six hours.
 * `--timeout` still bounds the whole run.
 */
export const defaultProcessTimeoutMs = 3_600_000;

/** Longest wall limit a call may ask for, in seconds (a day). */
export const maxTimeoutSeconds = 86_400;

export const argumentText = () => z.string().max(maxTextBytes).refine(withoutNul, 'may not contain a NUL byte');

/** The program of a direct (argv) process and its arguments. */
export const commandShape = () => ({
  command: z
    .string()
    .min(1)
    .max(4096)
    .refine(withoutNul, 'may not contain a NUL byte')
    .describe('Program to run: a name looked up on PATH, or a path (relative to cwd) containing a /'),
  args: z.array(argumentText()).max(4096).default([]).describe('Arguments, passed as they are (no shell)'),
});

/** Options every process-starting tool accepts, beside what it runs. */
export const launchOptionsShape = () => ({
  cwd: z.string().min(1).max(4096).optional().describe('Working directory, a directory inside the workspace (default: the workspace root)'),
  env: z
    .record(z.string().regex(envNamePattern, 'an environment variable name'), argumentText())
    .optional()
    .describe(
      'Extra environment variables; ones that change what runs (PATH, LD_*, GIT_*, NODE_OPTIONS, ...) need a process rule that names them, credentials must come from secrets:',
    ),
  stdin: z
    .string()
    .max(1024 * 1024)
    .optional()
    .describe('Text written to stdin (stdin is closed when absent)'),
  timeout: z.number().positive().max(maxTimeoutSeconds).optional().describe('Wall limit in seconds (never longer than the step timeout)'),
  max_output_bytes: z
    .number()
    .int()
    .positive()
    .max(maxOutputLimitBytes)
    .default(defaultOutputLimitBytes)
    .describe('Bytes of stdout and of stderr kept (each); the rest is drained and dropped, and truncated is set'),
});

/** For tools that run a process to completion. */
export const okExitCodesSchema = () => z.array(z.number().int().min(0).max(255)).min(1).max(256).default([0]).describe('Exit codes that count as success (default [0])');

export type LaunchOptions = z.infer<z.ZodObject<ReturnType<typeof launchOptionsShape>>>;
export type CommandOptions = z.infer<z.ZodObject<ReturnType<typeof commandShape>>>;
