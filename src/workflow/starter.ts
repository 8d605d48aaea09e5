/** The commented example `rho init` writes: valid, runnable, and a tour of the format. */
export const starterWorkflow = `# yaml-language-server: $schema=./node_modules/rho-cli/schemas/workflow.schema.json
# A rho workflow. Run it with:   rho run THIS_FILE
# Check it without running:      rho validate THIS_FILE
# See what it would do:          rho plan THIS_FILE
version: 1
name: starter
description: Write a note, read it back, and show it

# The workspace is the directory every relative path lives in (default: the current directory).
# workspace: .

# Steps run one at a time unless you raise this (or pass -j N); independent steps then overlap.
max_parallel: 2

inputs:
  message: { type: string, default: "hello from rho", description: What to write }

# Nothing is allowed unless a rule says so. Rules: read, write, process, shell, network,
# network_tool, skill, instructions, outside — each optionally narrowed: write(notes/**).
policy:
  allow: ["write(notes/**)", "read(notes/**)"]
  # ask:  ["process(npm publish)"]   # needs approval: a prompt, or --approve / --yes in CI
  # deny: ["write(.git/**)"]         # a deny always wins

steps:
  - id: write
    name: Write the note
    tool: write_file
    with:
      path: notes/hello.txt
      content: "\${{ inputs.message }}\\n"
      create_dirs: true

  - id: read
    name: Read it back
    tool: read_file
    with: { path: notes/hello.txt }

  - id: show
    name: Show what was read
    tool: echo
    with: { value: "\${{ steps.read.data.content }}" }

  - id: always
    name: Runs even when something failed
    if: \${{ always() }}
    tool: echo
    with: { value: "write finished with status \${{ steps.write.status }}" }

  # A program to run is a step of its own: its command line, split into words but run without a
  # shell; its id is the program's name (needs process(git)).
  # - git status --short
  # A line that needs a shell (a pipe, a redirect, a glob) says so (needs the shell rule):
  # - shell: ls notes/*.txt | wc -l
`;
