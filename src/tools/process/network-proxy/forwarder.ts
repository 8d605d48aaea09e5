import { Socket } from 'node:net';
import type { SandboxChannel, SandboxCommand } from '../../../host/confinement/index.js';

/*
 * The program that runs first inside a sandbox whose processes reach the network only through
 * the proxy. The sandbox has a network namespace of its own with nothing but loopback, and no
 * path leads out of it: its one way to rho is the IPC channel it inherits from the spawn (a
 * connected socket pair, which bubblewrap passes through; seccomp forbids creating a unix
 * socket, so nothing in any sandbox can reach a socket by path). Most programs only speak TCP to a
 * proxy, so the forwarder listens on a loopback port inside the namespace and hands each
 * connection accepted there to rho over the channel, as a file descriptor (SCM_RIGHTS, Node's
 * `send(message, socket)`); rho serves it itself, so no byte is relayed and no framing is needed.
 * Then it runs the real program with HTTP_PROXY and friends pointing at that port. Its exit code
 * (or signal) is the program's.
 *
 * What the program is — its path, argv and environment — arrives as the first message on the
 * channel, never on an argv (world-readable in /proc/PID/cmdline) or in the forwarder's own
 * environment (NODE_OPTIONS and the like that the step sets are for the program, not the
 * forwarder's start). The port is the kernel's choice, so it never collides with one the
 * program wants.
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
process.once('message', (start) => {
  if (!start || start.type !== 'start' || typeof start.file !== 'string' || !strings(start.args) || typeof start.env !== 'object' || start.env === null) {
    fail('rho sent no program to start');
  }
  const env = Object.assign(Object.create(null), start.env);
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    process.send({ type: 'connection' }, client, (error) => {
      if (error) client.destroy();
    });
  });
  server.on('error', (error) => fail(error.message));
  server.listen(0, '127.0.0.1', () => {
    const proxy = 'http://127.0.0.1:' + server.address().port;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) env[name] = proxy;
    env.NO_PROXY = '';
    env.no_proxy = '';
    const child = spawn(start.file, start.args, { stdio: 'inherit', env });
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
});
`;

/** The command a sandbox runs instead of the program when its network is the proxy: the forwarder on `node` (this Node, which the sandbox keeps readable). */
export function forwarderCommand(node: string): SandboxCommand {
  return { file: node, args: ['-e', forwarderSource], env: {} };
}

/** Connections one forwarder may hand over and keep open at once; more are closed at once. */
export const maxHandedConnections = 256;

/**
 * rho's end of a forwarder's channel: sends it the program to start, and passes each connection
 * it hands over to `accept`. What arrives is untrusted (a program in the sandbox may have taken
 * the forwarder over): anything but a TCP socket with the connection message is dropped, and
 * beyond `maxHandedConnections` open at once a connection is closed.
 */
export function serveForwarder(channel: SandboxChannel, target: SandboxCommand, accept: (socket: Socket) => void): void {
  // A sandbox that ended before the message went out has nothing left to tell.
  channel.send({ type: 'start', file: target.file, args: target.args, env: target.env }, () => undefined);
  let open = 0;
  channel.on('message', (message, handle) => {
    if (!(handle instanceof Socket)) return;
    if ((message as { type?: unknown } | null)?.type !== 'connection' || open >= maxHandedConnections) return void handle.destroy();
    open++;
    handle.once('close', () => open--);
    accept(handle);
  });
}
