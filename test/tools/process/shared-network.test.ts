import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxChannel, SharedNetwork } from '../../../src/host/confinement/index.js';
import { forwarderCommand, serveForwarder } from '../../../src/tools/process/network-proxy/forwarder.js';
import { baseArguments } from '../../../src/tools/process/sandbox/bubblewrap/arguments.js';
import { shareBubblewrapNetwork } from '../../../src/tools/process/sandbox/bubblewrap/shared-network.js';
import { findSystemProgram } from '../../../src/tools/process/trusted-programs.js';

// CI installs bubblewrap and util-linux: the run's sandboxes behind the proxy share one network namespace.
const bwrap = findSystemProgram('bwrap')!;
const run = promisify(execFile);

let network: SharedNetwork | undefined;
afterEach(() => {
  network?.close();
  network = undefined;
});

/** The shared namespace with the proxy's forwarder in it, ready: its forwarder has said its port. Each connection it hands over goes to `accepted`. */
async function started(accepted: Socket[] = []): Promise<{ network: SharedNetwork; port: number }> {
  let port = 0;
  const serve = (channel: SandboxChannel) =>
    new Promise<void>((resolve) =>
      serveForwarder(
        channel,
        (socket) => accepted.push(socket),
        (listening) => {
          port = listening;
          resolve();
        },
      ),
    );
  network = await shareBubblewrapNetwork({ forwarder: forwarderCommand(process.execPath), serve, location: bwrap, untrusted: [] });
  return { network, port };
}

/** Runs a shell script in a sandbox that joins the namespace, as a step's does. */
async function inside(shared: SharedNetwork, script: string): Promise<string> {
  const { file, args } = shared.enter(bwrap, [...baseArguments, '--', '/bin/bash', '-c', script]);
  return (await run(file, [...args], { env: {} })).stdout.trim();
}

describe("the run's shared network namespace under bubblewrap", () => {
  it('is one namespace for every sandbox that joins it, with loopback only, not the host’s', async () => {
    const { network: shared } = await started();
    const first = await inside(shared, "readlink /proc/self/ns/net; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    const second = await inside(shared, 'readlink /proc/self/ns/net');
    expect(first.split('\n')).toEqual([second, 'lo']);
    expect(second).not.toBe(readlinkSync('/proc/self/ns/net'));
  });

  it("hands a joined sandbox's connection to the forwarder's port over to rho", async () => {
    const accepted: Socket[] = [];
    const { network: shared, port } = await started(accepted);
    // bash's /dev/tcp opens a TCP connection without any client program.
    const said = await inside(shared, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);
    expect(said).toBe('connected');
    await expect.poll(() => accepted.length).toBe(1);
    for (const socket of accepted) socket.destroy();
  });

  it('ends with close: its first process is gone', async () => {
    const { network: shared } = await started();
    shared.close();
    await shared.ended;
  });

  it('refuses to share where the nsenter it would run lies where steps write', async () => {
    const untrusted = ['/usr', '/bin', '/sbin'];
    const serve = () => Promise.resolve();
    await expect(shareBubblewrapNetwork({ forwarder: forwarderCommand(process.execPath), serve, location: bwrap, untrusted })).rejects.toMatchObject({
      kind: 'unsupported',
      message: expect.stringContaining('lies where steps can write'),
    });
  });
});
