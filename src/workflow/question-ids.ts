import { HostError } from '../host/errors.js';
import { closestNames } from './suggest.js';
import type { CompiledWorkflow } from './model.js';

/**
 * The ids of every question the workflow can ask, or undefined when they cannot all be known
 * before it runs: a questions list or an id built by an expression, or tools of the workflow's
 * own (which may ask questions of their own). Unnamed questions are `q1`, `q2`, ... as the
 * questionnaire names them; each id is also listed as `STEP.ID`.
 */
export function askedQuestionIds(workflow: CompiledWorkflow): Set<string> | undefined {
  if ((workflow.file.tools ?? []).length > 0) return undefined;
  const ids = new Set<string>();
  for (const step of workflow.steps) {
    if (step.tool !== 'questionnaire') continue;
    const questions = step.with['questions'];
    if (!Array.isArray(questions)) return undefined;
    for (const [index, question] of questions.entries()) {
      const id = (question as { id?: unknown } | null)?.id ?? `q${index + 1}`;
      if (typeof id !== 'string' || id.includes('${{')) return undefined;
      // An answer may name the id alone or scope it to its step (`STEP.ID`).
      ids.add(id);
      ids.add(`${step.id}.${id}`);
    }
  }
  return ids;
}

/** Refuses an answer given ahead of time (`--answer`, `--answers FILE`) for a question the workflow never asks. */
export function checkScriptedAnswerIds(workflow: CompiledWorkflow, answers: readonly { id: string; origin: string }[]): void {
  if (answers.length === 0) return;
  const asked = askedQuestionIds(workflow);
  if (!asked) return;
  for (const { id, origin } of answers) {
    if (asked.has(id)) continue;
    const candidates = [...asked].filter((known) => known.includes('.') === id.includes('.'));
    const suggestion = closestNames(id, candidates)[0];
    const known = asked.size === 0 ? 'the workflow asks no questions' : suggestion ? `did you mean "${suggestion}"?` : `its questions: ${candidates.join(', ')}`;
    throw new HostError('usage', `${origin}: no question of the workflow has the id "${id}"; ${known}`);
  }
}
