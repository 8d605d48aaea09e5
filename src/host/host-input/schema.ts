import { z } from 'zod';
import { minMaskableLength } from '../masking.js';
import { prototypeKeyReason, prototypeKeys } from '../prototype-keys.js';

/**
 * The questionnaire as a tool or workflow writes it (SPEC §8). These schemas are the single
 * source of the questionnaire's shape, its TypeScript types and its JSON Schema; the rules that
 * relate one field to another live in `problems.ts`. Each is a function: `questionnaireSchema`
 * builds them once, on first use.
 */
export const questionTypes = ['text', 'choice', 'multi', 'confirm'] as const;

/** What a text answer must look like: a number or integer (still answered as text), or a string format. */
export const textFormats = ['number', 'integer', 'email', 'uri', 'date', 'date-time'] as const;

/** Ids appear in `--answer ID=VALUE` and in expressions, so they stay plain words. */
export const questionIdPattern = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

export const questionnaireLimits = {
  questions: 50,
  choices: 100,
  labelLength: 200,
  questionLength: 2000,
  reasonLength: 1000,
  textAnswerLength: 64 * 1024,
  /** Secret answers are masked in every output, which needs this many characters. */
  secretMinLength: minMaskableLength,
} as const;

const answerSchema = () => z.union([z.string(), z.boolean(), z.array(z.string())]);

const rawQuestionSchema = () =>
  z.strictObject({
    id: z
      .string()
      .regex(questionIdPattern, 'an id is 1-64 letters, digits, "_" or "-", not starting with "-"')
      .refine((id) => !prototypeKeys.has(id), `this id cannot be used: ${prototypeKeyReason}`)
      .optional()
      .describe('Key of the answer; required when on_timeout is given'),
    question: z.string().min(1).max(questionnaireLimits.questionLength).describe('The text a person reads'),
    type: z.enum(questionTypes).default('text'),
    choices: z
      .array(z.string().min(1).max(questionnaireLimits.labelLength))
      .min(1)
      .max(questionnaireLimits.choices)
      .optional()
      .describe('Exact labels offered by choice and multi questions'),
    default: answerSchema().optional().describe('Preselected answer in a prompt (never applied without a person)'),
    required: z.boolean().default(true),
    secret: z.boolean().default(false).describe('Mask the answer everywhere (text questions only)'),
    format: z.enum(textFormats).optional().describe('Text questions: the answer must be a number, an integer, an email, a URI, a date or a date-time'),
    minimum: z.number().optional().describe('number and integer formats: the smallest value accepted'),
    maximum: z.number().optional().describe('number and integer formats: the largest value accepted'),
    min_length: z.int().min(0).optional().describe('Text questions: the fewest characters accepted'),
    max_length: z.int().min(0).optional().describe('Text questions: the most characters accepted'),
    min_items: z.int().min(0).optional().describe('multi questions: the fewest selections accepted'),
    max_items: z.int().min(0).optional().describe('multi questions: the most selections accepted'),
  });

const rawTimeoutFallbackSchema = () =>
  z.strictObject({
    answers: z.record(z.string(), answerSchema()).describe('Answers used when --question-timeout expires untouched'),
    reason: z.string().max(questionnaireLimits.reasonLength).describe('Why these answers are safe to apply unattended'),
  });

export const rawQuestionnaireShape = () => ({
  questions: z.array(rawQuestionSchema()).min(1).max(questionnaireLimits.questions),
  on_timeout: rawTimeoutFallbackSchema().optional(),
});

export type QuestionType = (typeof questionTypes)[number];
export type Answer = string | boolean | readonly string[];
export type RawQuestion = z.output<ReturnType<typeof rawQuestionSchema>>;
export type RawQuestionnaire = z.output<z.ZodObject<ReturnType<typeof rawQuestionnaireShape>>>;

/** A checked question: every default filled in and an id assigned. */
export type Question = Readonly<Omit<RawQuestion, 'id' | 'choices' | 'default'>> & {
  readonly id: string;
  readonly choices?: readonly string[];
  readonly default?: Answer;
};
