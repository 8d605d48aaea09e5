/** The part of enquirer's Confirm prompt used here (enquirer's typings declare only the base class). */
interface ConfirmPrompt {
  run(): Promise<unknown>;
}
type ConfirmClass = new (options: Record<string, unknown>) => ConfirmPrompt;

/**
 * Asks a person one yes-or-no question at the terminal (stdin, drawn on stderr); no unless they
 * say yes. Ctrl-C or a closed terminal is a no.
 */
export async function confirmAtTerminal(message: string): Promise<boolean> {
  // enquirer loads only when a question is asked.
  const { Confirm } = (await import('enquirer')).default as unknown as { Confirm: ConfirmClass };
  try {
    return (await new Confirm({ name: 'confirm', message, initial: false, stdin: process.stdin, stdout: process.stderr }).run()) === true;
  } catch {
    return false;
  }
}
