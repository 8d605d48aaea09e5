import type { StepStateRecord } from './state-file.js';

type Inputs = Omit<StepStateRecord, 'generates'>;

/** The first difference between a step's recorded inputs and its current ones, as a person reads it; undefined when none. */
export function describeChange(previous: Inputs, current: Inputs): string | undefined {
  if (previous.tool !== current.tool) return `its tool changed (${previous.tool} → ${current.tool})`;
  if (previous.arguments !== current.arguments) return 'its arguments changed';
  const variable = firstDifference(previous.env, current.env);
  if (variable) return `${variable.name.replace(/^env\./, 'variable ').replace(/^secrets\./, 'secret ')} ${variable.how}`;
  const source = firstDifference(previous.sources, current.sources);
  if (source) return `source ${source.name} ${source.how}`;
  return undefined;
}

function firstDifference(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): { name: string; how: string } | undefined {
  for (const name of Object.keys(after).sort()) {
    if (!(name in before)) return { name, how: 'was added' };
    if (before[name] !== after[name]) return { name, how: 'changed' };
  }
  for (const name of Object.keys(before).sort()) if (!(name in after)) return { name, how: 'was removed' };
  return undefined;
}
