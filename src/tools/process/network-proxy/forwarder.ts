/**
 * The program that runs first inside a sandbox whose processes reach the network only through
 * the proxy. The sandbox has a network namespace of its own with nothing but loopback, and the
 * proxy is a unix socket bound into it; most programs only speak TCP to a proxy, so this
 * listens on a loopback port inside the namespace and relays each connection to the socket,
 * then runs the real program with HTTP_PROXY and friends pointing at that port. Its exit code
 * (or signal) is the program's.
 *
 * It runs as `node -e` with an empty environment: NODE_OPTIONS and the like that the step sets
 * are for the program, so they reach it through arguments (`NAME=VALUE` entries), never the
 * forwarder's own start. The port is the kernel's choice, so it never collides with one the
 * program wants.
 */
const forwarderSource = String.raw`
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socketPath, countText, ...rest] = process.argv.slice(1);
const count = Number(countText);
const env = {};
for (const entry of rest.slice(0, count)) {
  const split = entry.indexOf('=');
  env[entry.slice(0, split)] = entry.slice(split + 1);
}
const [file, ...args] = rest.slice(count);
const fail = (message) => {
  process.stderr.write('rho network forwarder: ' + message + '\n');
  process.exit(126);
};
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end);
  upstream.on('error', end);
  client.on('close', end);
  upstream.on('close', end);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => fail(error.message));
server.listen(0, '127.0.0.1', () => {
  const proxy = 'http://127.0.0.1:' + server.address().port;
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) env[name] = proxy;
  env.NO_PROXY = '';
  env.no_proxy = '';
  const child = spawn(file, args, { stdio: 'inherit', env });
  const relay = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, relay);
  child.on('error', (error) => {
    process.stderr.write(file + ': ' + error.message + '\n');
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

export interface ForwardedCommand {
  file: string;
  args: string[];
  /** The forwarder's own environment: empty, so nothing the step sets changes how it starts. */
  env: Record<string, string>;
}

/**
 * The command a sandbox runs instead of `file args` when its network is the proxy: the
 * forwarder (on this Node, which the sandbox must keep readable), relaying to `socketPath`,
 * then the program with `env` and the proxy variables.
 */
export function forwardedCommand(
  node: string,
  socketPath: string,
  target: { file: string; args: readonly string[]; env: Readonly<Record<string, string>> },
): ForwardedCommand {
  const assignments = Object.entries(target.env).map(([name, value]) => `${name}=${value}`);
  return {
    file: node,
    args: ['-e', forwarderSource, '--', socketPath, String(assignments.length), ...assignments, target.file, ...target.args],
    env: {},
  };
}
