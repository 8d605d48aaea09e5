/**
 * Runs `exec` on a child that prints 1 GiB through a ToolHost in this process, then prints the
 * result facts, what its progress events carried and counted, and this process's peak RSS as
 * JSON. Started by output-bounds tests with tsx, so the measurement is not disturbed by the test
 * runner's own memory.
 */
import { ProcessHarness, node, script } from './harness.js';

const harness = await ProcessHarness.create();
try {
  const result = await harness.invoke('exec', { command: node, args: [script('print-gigabyte.mjs')] }, { timeoutMs: 60_000 });
  const data = result.output?.data as { stdout: string; truncated: boolean } | undefined;
  // Each event's lines, with the line feed each ended with.
  const progressBytes = harness.events.reduce((sum, event) => sum + (event.type === 'step_progress' ? Buffer.byteLength(event.message) + 1 : 0), 0);
  const omitted = harness.events.find((event) => event.type === 'step_output_omitted');
  console.log(
    JSON.stringify({
      status: result.status,
      truncated: data?.truncated,
      stdoutBytes: data === undefined ? undefined : Buffer.byteLength(data.stdout),
      progressBytes,
      omitted: omitted && { lines: omitted.lines, bytes: omitted.bytes },
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
} finally {
  await harness.dispose();
}
