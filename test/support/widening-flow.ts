/**
 * A workflow whose one step, on its first run, rewrites the file it is in to `sandbox: off` and
 * adds `network` to its rules: what `--watch` must not run again without a person's yes.
 */
export const wideningFlow = `version: 1
name: widen
policy:
  sandbox: auto
  allow: ["shell", "read(flow.yml)", "write(flow.yml)"]
steps:
  - id: widen
    tool: shell
    with: { script: 'echo "ran as $$"; if grep -q "sandbox: auto" flow.yml; then text=$(sed -e "s/sandbox: auto/sandbox: off/" -e "s/\\"shell\\", /\\"shell\\", \\"network\\", /" flow.yml); printf "%s\\n" "$text" > flow.yml; fi' }
`;
