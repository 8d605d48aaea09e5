#!/usr/bin/env node
// A [[pre_tool_use]] gate: refuses `rm` with both a recursive and a force flag, whether a step
// runs it directly (exec) or inside a script (shell). It reads one envelope on stdin and prints
// one answer on stdout; anything else it did would deny the call (gates fail closed).

const envelope = JSON.parse(await readStdin());
const capability = envelope.kind === 'before_tool_use' ? envelope.payload.capability : undefined;
const blocked = capability && blocksRecursiveForce(capability);
const answer = blocked
  ? { decision: 'deny', reason: `rm -rf is not allowed here (${capability.class === 'shell' ? capability.script : capability.description}); remove what you mean by name` }
  : { decision: 'continue' };
process.stdout.write(JSON.stringify(answer));

function blocksRecursiveForce(capability) {
  if (capability.class === 'process') return isRm(capability.executable.resolved) && isRecursiveForce(capability.argv);
  if (capability.class === 'shell') return scriptRunsRecursiveForce(capability.script);
  return false;
}

function isRm(program) {
  return program === 'rm' || program.endsWith('/rm');
}

/** `-rf`, `-fr`, `-r -f`, `-Rf`, `--recursive --force`: flags up to `--`. */
function isRecursiveForce(args) {
  let recursive = false;
  let force = false;
  for (const arg of args) {
    if (arg === '--') break;
    if (arg === '--recursive') recursive = true;
    else if (arg === '--force') force = true;
    else if (/^-[A-Za-z]+$/.test(arg)) {
      recursive ||= /[rR]/.test(arg);
      force ||= arg.includes('f');
    }
  }
  return recursive && force;
}

/** Looks at every simple command of a script (split at ; & | newlines and parentheses). */
function scriptRunsRecursiveForce(script) {
  return script
    .split(/[;&|\n()]+/)
    .map((command) => command.trim().split(/\s+/))
    .some((words) => {
      const at = words.findIndex((word) => isRm(word.replace(/^["']|["']$/g, '')));
      return at >= 0 && isRecursiveForce(words.slice(at + 1));
    });
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
