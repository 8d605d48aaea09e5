import { Socket } from 'node:net';
import type { SandboxChannel, SandboxCommand } from '../../../host/confinement/index.js';

/*
 * The program that runs first in a network namespace whose processes reach the network only
 * through the proxy. The namespace holds nothing but loopback, and no path leads out of it: the
 * forwarder's one way to rho is the IPC channel it inherits from the spawn (a connected socket
 * pair, which the sandbox passes through; seccomp forbids creating a unix socket, so nothing in
 * any sandbox can reach a socket by path). Most programs only speak TCP to a proxy, so the
 * forwarder listens on a loopback port inside the namespace (the kernel's choice, so it never
 * collides with one a program wants), says which, and hands each connection accepted there to
 * rho over the channel, as a file descriptor (SCM_RIGHTS, Node's `send(message, socket)`); rho
 * serves it itself, so no byte is relayed and no framing is needed.
 *
 * Either it serves a whole run's namespace, which the run's sandboxes join, until rho closes its
 * channel; or it is the first process of one sandbox and starts that sandbox's program once rho
 * sends it (`startBehindForwarder`), exiting with the program's code (or signal). What the
 * program is — its path, argv and environment — then arrives on the channel, never on an argv
 * (world-readable in /proc/PID/cmdline) or in the forwarder's own environment (NODE_OPTIONS and
 * the like that the step sets are for the program, not the forwarder's start).
 */
const forwarderSource = String.raw`
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const fail = (message) => {
  process.stderr.write('rho network forwarder: ' + message + '\n');
  process.exit(126);
};
if (typeof process.send !== 'function') fail('started without its channel to rho');
const strings = (value) => Array.isArray(value) && value.every((entry) => typeof entry === 'string');
const server = net.createServer({ pauseOnConnect: true }, (client) => {
  process.send({ type: 'connection' }, client, (error) => {
    if (error) client.destroy();
  });
});
server.on('error', (error) => fail(error.message));
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
process.on('disconnect', () => process.exit(0));
process.once('message', (start) => {
  if (!start || start.type !== 'start' || typeof start.file !== 'string' || !strings(start.args) || typeof start.env !== 'object' || start.env === null) {
    fail('rho sent no program to start');
  }
  const child = spawn(start.file, start.args, { stdio: 'inherit', env: Object.assign(Object.create(null), start.env) });
  const relay = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, relay);
  child.on('error', (error) => {
    process.stderr.write(start.file + ': ' + error.message + '\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal === null) process.exit(code);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    setImmediate(() => process.exit(128 + (require('node:os').constants.signals[signal] || 0)));
  });
});
`;

/** The command that runs the forwarder on `node` (this Node, which every sandbox keeps readable). */
export function forwarderCommand(node: string): SandboxCommand {
  return { file: node, args: ['-e', forwarderSource], env: {} };
}

/** Connections one forwarder may hand over and keep open at once; more are closed at once. */
export const maxHandedConnections = 256;

const isPort = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536;

/**
 * rho's end of a forwarder's channel: says once on which port the forwarder listens
 * (`listening`), and passes each connection it hands over to `accept`. What arrives is untrusted
 * (a program in the sandbox may have taken the forwarder over): anything but a TCP socket with
 * the connection message is dropped, and beyond `maxHandedConnections` open at once a
 * connection is closed.
 */
export function serveForwarder(channel: SandboxChannel, accept: (socket: Socket) => void, listening: (port: number) => void): void {
  let open = 0;
  let told = false;
  channel.on('message', (message, handle) => {
    const type = (message as { type?: unknown } | null)?.type;
    if (type === 'listening' && !told && isPort((message as { port?: unknown }).port)) {
      told = true;
      return listening((message as { port: number }).port);
    }
    if (!(handle instanceof Socket)) return;
    if (type !== 'connection' || open >= maxHandedConnections) return void handle.destroy();
    open++;
    handle.once('close', () => open--);
    accept(handle);
  });
}

/** Starts `target` behind the forwarder of one sandbox. */
export function startBehindForwarder(channel: SandboxChannel, target: SandboxCommand): void {
  // A sandbox that ended before the message went out has nothing left to tell.
  channel.send({ type: 'start', file: target.file, args: target.args, env: target.env }, () => undefined);
}
