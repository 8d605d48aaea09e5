import { describe, expect, it } from 'vitest';
import { SecretMasker } from '../../src/host/masking.js';
import { guardStreams, neutralizeWorkflowCommands } from '../../src/ui/render/guarded-sink.js';
import { runnerCommands } from '../support/actions-runner.js';

const secret = 'hunter2-secret';

function capture() {
  const written = { stdout: '', stderr: '' };
  const raw = { stdout: { write: (text: string) => void (written.stdout += text) }, stderr: { write: (text: string) => void (written.stderr += text) } };
  return { written, raw };
}

describe('the guarded streams', () => {
  it('neutralize every way a line can act as a workflow command, keeping the text readable', () => {
    const vectors = [
      '::error::at the start',
      '  \t::warning::after white space',
      'before\r::add-mask::after a lone carriage return',
      'mid ##[set-output name=a]legacy anywhere in a line',
      '##[stop-commands]token',
      '::stop-commands::token',
      'ends with CR\r',
    ];
    const text = `${vectors.join('\n')}\n`;
    expect(runnerCommands(text).length).toBeGreaterThan(0);
    const safe = neutralizeWorkflowCommands(text);
    expect(runnerCommands(safe)).toEqual([]);
    expect(safe.split('\n')).toEqual([
      '\\::error::at the start',
      '\\  \t::warning::after white space',
      'before',
      '\\::add-mask::after a lone carriage return',
      'mid ##[\\set-output name=a]legacy anywhere in a line',
      '##[\\stop-commands]token',
      '\\::stop-commands::token',
      'ends with CR',
      '',
    ]);
  });

  it('mask both streams always, and neutralize them on GitHub Actions only; commands pass as written', () => {
    for (const githubActions of [false, true]) {
      const { written, raw } = capture();
      const masker = new SecretMasker([secret]);
      const streams = guardStreams(raw, masker, { githubActions, colours: { stdout: githubActions, stderr: githubActions } });
      streams.stdout.write(`token ${secret}\n`);
      streams.stderr.write(`::error::${secret}\n`);
      streams.stdout.command('::group::mine');
      expect(written.stdout).toBe('token ***\n::group::mine\n');
      expect(written.stderr).toBe(githubActions ? '\\::error::***\n' : '::error::***\n');
    }
  });

  it('write out control characters and escape sequences after masking, keeping colours only on a stream that shows them', () => {
    const { written, raw } = capture();
    const streams = guardStreams(raw, new SecretMasker([secret]), { githubActions: false, colours: { stdout: true, stderr: false } });
    const text = `\u001b]0;${secret}\u0007 \u001b[32mgreen\u001b[0m bell\u0007\n`;
    streams.stdout.write(text);
    streams.stderr.write(text);
    expect(written.stdout).toBe('\\e]0;***\\u{7} \u001b[32mgreen\u001b[0m bell\\u{7}\u001b[0m\n');
    expect(written.stderr).toBe('\\e]0;***\\u{7} green bell\\u{7}\n');
  });

  it('escape a line-leading :: after any white space the runner trims, U+0085 included', () => {
    const text = '\u0085::add-mask::x\n\u3000::set-output name=a::b\n';
    expect(runnerCommands(text).map((command) => command.name)).toEqual(['add-mask', 'set-output']);
    const safe = neutralizeWorkflowCommands(text);
    expect(runnerCommands(safe)).toEqual([]);
    expect(safe).toBe('\\\u0085::add-mask::x\n\\\u3000::set-output name=a::b\n');
  });
});
