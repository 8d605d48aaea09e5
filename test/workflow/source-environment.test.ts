import { describe, expect, it } from 'vitest';
import { WorkflowSource } from '../../src/workflow/source.js';

describe('WorkflowSource.parse and process.env', () => {
  it('leaves the real process.env in place after parsing a file, valid or not', () => {
    const environment = process.env;
    expect(WorkflowSource.parse('ok.yml', 'version: 1\nname: a\nsteps: []\n').source).toBeDefined();
    expect(process.env).toBe(environment);
    expect(WorkflowSource.parse('bad.yml', 'a: [\n').problems.length).toBeGreaterThan(0);
    expect(process.env).toBe(environment);
  });
});
