import { z } from 'zod';
import { createHostInput, questionnaireLimits, type Answer, type HostInput, type RawQuestion } from '../../host/host-input.js';

/**
 * An `elicitation/create` form as rho reads it: the restricted JSON Schema of MCP's form mode
 * (flat properties: string, number, integer, boolean, single and multi-select enums), turned into
 * host-input questions so a person, or the scripted answers, answer it like a questionnaire.
 * `writeOnly: true` on a string marks its answer secret: it is masked everywhere.
 */

const common = { title: z.string().max(questionnaireLimits.labelLength).optional(), description: z.string().max(questionnaireLimits.questionLength).optional() };
const option = z.looseObject({ const: z.string().min(1).max(questionnaireLimits.labelLength), title: z.string().max(questionnaireLimits.labelLength).optional() });
const labels = z.array(z.string().min(1).max(questionnaireLimits.labelLength)).min(1).max(questionnaireLimits.choices);
const bound = z.number().finite().optional();
const count = z.int().min(0).optional();

const booleanField = z.looseObject({ ...common, type: z.literal('boolean'), default: z.boolean().optional() });
const numberField = z.looseObject({ ...common, type: z.enum(['number', 'integer']), minimum: bound, maximum: bound, default: z.number().finite().optional() });
const enumField = z.looseObject({ ...common, type: z.literal('string'), enum: labels, enumNames: z.array(z.string()).optional(), default: z.string().optional() });
const titledEnumField = z.looseObject({ ...common, type: z.literal('string'), oneOf: z.array(option).min(1).max(questionnaireLimits.choices), default: z.string().optional() });
const stringField = z.looseObject({
  ...common,
  type: z.literal('string'),
  minLength: count,
  maxLength: count,
  format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
  writeOnly: z.boolean().optional(),
  default: z.string().optional(),
});
const multiField = z.looseObject({
  ...common,
  type: z.literal('array'),
  minItems: count,
  maxItems: count,
  items: z.union([z.looseObject({ type: z.literal('string'), enum: labels }), z.looseObject({ anyOf: z.array(option).min(1).max(questionnaireLimits.choices) })]),
  default: z.array(z.string()).optional(),
});

/** A form field, told apart by what it offers (zod's union would only say which member matched). */
type Field =
  | { kind: 'boolean'; field: z.infer<typeof booleanField> }
  | { kind: 'number'; field: z.infer<typeof numberField> }
  | { kind: 'choice'; field: { title?: string; description?: string; default?: string }; choices: string[]; titles: readonly string[] }
  | { kind: 'multi'; field: z.infer<typeof multiField>; choices: string[]; titles: readonly string[] }
  | { kind: 'string'; field: z.infer<typeof stringField> };

const fieldSchema = z.unknown().transform((raw, ctx): Field => {
  const type = (raw as { type?: unknown } | null)?.type;
  const attempt = <T>(schema: z.ZodType<T>) => schema.safeParse(raw);
  if (type === 'boolean') return orIssue(attempt(booleanField), ctx, (field) => ({ kind: 'boolean', field }));
  if (type === 'number' || type === 'integer') return orIssue(attempt(numberField), ctx, (field) => ({ kind: 'number', field }));
  if (type === 'array') {
    return orIssue(attempt(multiField), ctx, (field) => {
      const items = field.items as { enum?: string[]; anyOf?: { const: string; title?: string }[] };
      const choices = items.enum ?? items.anyOf!.map((item) => item.const);
      return { kind: 'multi', field, choices, titles: items.anyOf?.map((item) => item.title ?? item.const) ?? [] };
    });
  }
  if (type === 'string' && typeof raw === 'object' && raw !== null && 'enum' in raw) {
    return orIssue(attempt(enumField), ctx, (field) => ({ kind: 'choice', field, choices: field.enum, titles: field.enumNames ?? [] }));
  }
  if (type === 'string' && typeof raw === 'object' && raw !== null && 'oneOf' in raw) {
    return orIssue(attempt(titledEnumField), ctx, (field) => ({
      kind: 'choice',
      field,
      choices: field.oneOf.map((item) => item.const),
      titles: field.oneOf.map((item) => item.title ?? item.const),
    }));
  }
  if (type === 'string') return orIssue(attempt(stringField), ctx, (field) => ({ kind: 'string', field }));
  ctx.addIssue({ code: 'custom', message: 'a field is a string, number, integer, boolean or array of choices' });
  return z.NEVER;
});

function orIssue<T>(parsed: z.ZodSafeParseResult<T>, ctx: z.RefinementCtx, build: (value: T) => Field): Field {
  if (parsed.success) return build(parsed.data);
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
}

export const elicitationParamsSchema = z.looseObject({
  mode: z.literal('form').optional(),
  message: z.string().max(questionnaireLimits.questionLength),
  requestedSchema: z.looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), fieldSchema),
    required: z.array(z.string()).optional(),
  }),
});

/** What a field's answer is sent back as. */
type ValueKind = 'string' | 'number' | 'integer' | 'boolean' | 'list';

/** A field's value as sent back to the server. */
export type FieldValue = string | number | boolean | string[];

export interface ElicitationForm {
  input: HostInput;
  kinds: ReadonlyMap<string, ValueKind>;
  /** The server's default for each field that has one: what a field nobody answered takes (SEP-1034). */
  defaults: ReadonlyMap<string, FieldValue>;
}

/** The text a person reads: the field's title and description, and what titled choices mean. */
function questionText(name: string, field: Field): string {
  const head = field.field.title ?? name;
  const described = field.field.description ? `${head}: ${field.field.description}` : head;
  if (field.kind !== 'choice' && field.kind !== 'multi') return described;
  const { choices, titles } = field;
  const named = titles.length === choices.length && titles.some((title, index) => title !== choices[index]);
  return named ? `${described} (${choices.map((choice, index) => `${choice} = ${titles[index]}`).join(', ')})` : described;
}

function question(name: string, field: Field, required: boolean): { raw: RawQuestion; kind: ValueKind } {
  const base = { id: name, question: questionText(name, field), required, secret: false };
  switch (field.kind) {
    case 'boolean':
      return { raw: { ...base, type: 'confirm', ...(field.field.default !== undefined && { default: field.field.default }) }, kind: 'boolean' };
    case 'number': {
      const { type, minimum, maximum, default: initial } = field.field;
      const raw: RawQuestion = {
        ...base,
        type: 'text',
        format: type,
        ...(minimum !== undefined && { minimum }),
        ...(maximum !== undefined && { maximum }),
        ...(initial !== undefined && { default: String(initial) }),
      };
      return { raw, kind: type };
    }
    case 'multi': {
      const { minItems, maxItems, default: initial } = field.field;
      const raw: RawQuestion = {
        ...base,
        type: 'multi',
        choices: field.choices,
        ...(minItems !== undefined && { min_items: minItems }),
        ...(maxItems !== undefined && { max_items: maxItems }),
        ...(initial !== undefined && { default: initial }),
      };
      return { raw, kind: 'list' };
    }
    case 'choice':
      return { raw: { ...base, type: 'choice', choices: field.choices, ...(field.field.default !== undefined && { default: field.field.default }) }, kind: 'string' };
    case 'string': {
      const { format, minLength, maxLength, writeOnly, default: initial } = field.field;
      const secret = writeOnly === true;
      const raw: RawQuestion = {
        ...base,
        type: 'text',
        secret,
        ...(format !== undefined && { format }),
        ...(minLength !== undefined && { min_length: minLength }),
        ...(maxLength !== undefined && { max_length: maxLength }),
        ...(!secret && initial !== undefined && { default: initial }),
      };
      return { raw, kind: 'string' };
    }
  }
}

/**
 * Builds the questions of a form. The server's message opens the first question. A field with a
 * default is never a required question: left unanswered, it takes the default. Anything the
 * questionnaire rules refuse (an unusable property name, a default that is not one of the
 * choices) throws `invalid_arguments`, and the request is answered with an error.
 */
export function parseElicitationForm(rawParams: unknown): ElicitationForm {
  const params = elicitationParamsSchema.parse(rawParams);
  const required = new Set(params.requestedSchema.required ?? []);
  const kinds = new Map<string, ValueKind>();
  const defaults = new Map<string, FieldValue>();
  const questions = Object.entries(params.requestedSchema.properties).map(([name, field], index) => {
    const initial = field.field.default;
    if (initial !== undefined) defaults.set(name, Array.isArray(initial) ? [...initial] : initial);
    const { raw, kind } = question(name, field, required.has(name) && initial === undefined);
    kinds.set(name, kind);
    return index === 0 && params.message ? { ...raw, question: `${params.message}\n${raw.question}` } : raw;
  });
  return { input: createHostInput({ questions }), kinds, defaults };
}

/**
 * The form's values: the server's defaults for the fields left unanswered (SEP-1034), then the
 * answers, numbers as numbers, booleans and lists as they are.
 */
export function elicitedContent(form: ElicitationForm, answers: Readonly<Record<string, Answer>>): Record<string, FieldValue> {
  const content: Record<string, FieldValue> = Object.fromEntries(form.defaults);
  for (const [name, answer] of Object.entries(answers)) {
    const kind = form.kinds.get(name);
    if (kind === 'number' || kind === 'integer') content[name] = Number(answer);
    else if (Array.isArray(answer)) content[name] = [...answer];
    else content[name] = answer as string | boolean;
  }
  return content;
}
