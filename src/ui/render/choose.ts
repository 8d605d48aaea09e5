import type { Renderer, TextSink } from './renderer.js';

export type OutputMode = 'auto' | 'fancy' | 'plain';
export const outputModes: readonly OutputMode[] = ['auto', 'fancy', 'plain'];

export interface Terminal {
  /** stdout is a terminal. */
  isTTY: boolean;
  /** CI=true (or another CI marker) is set. */
  ci: boolean;
}

/** `auto` means fancy on a terminal outside CI, plain everywhere else. */
export function resolveOutputMode(mode: OutputMode, terminal: Terminal): Exclude<OutputMode, 'auto'> {
  if (mode !== 'auto') return mode;
  return terminal.isTTY && !terminal.ci ? 'fancy' : 'plain';
}

/** The renderer for a resolved mode; the listr2 one is loaded only when it is used. */
export async function createRenderer(mode: Exclude<OutputMode, 'auto'>, out: TextSink): Promise<Renderer> {
  if (mode === 'fancy') {
    const { FancyRenderer } = await import('./fancy.js');
    return new FancyRenderer(out);
  }
  const { PlainRenderer } = await import('./plain.js');
  return new PlainRenderer(out);
}
