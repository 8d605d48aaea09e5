import { createHash } from 'node:crypto';
import { ToolError } from '../../../../host/errors.js';

/*
 * The seccomp filter every confined process runs under: a classic BPF program, built here as the
 * bytes bubblewrap reads (`--seccomp FD`) and installs right before it starts the program, so it
 * holds for the program and everything it starts. Namespaces cannot stop what it stops: a path
 * does not make a unix socket reachable (connect(2) works on a read-only mount, and a socket can
 * live anywhere: the ssh agent's, Docker's, tmux's, the user's D-Bus), so the filter refuses to
 * create one; and a process that may create namespaces can undo the sandbox's, so it may not.
 *
 * What it refuses, and how a refusal reads to the program:
 * - socket(2) of any family but IPv4, IPv6 and netlink (interface lists): AF_UNIX fails with
 *   EPERM unless the policy grants unix sockets, the rest with EAFNOSUPPORT (AF_VSOCK to the
 *   hypervisor, Bluetooth, CAN…);
 * - socketpair(2) other than a connected AF_UNIX stream or seqpacket pair (EPERM): a datagram
 *   pair can be connected to, or send to, a host socket by path (journald's, say). The stream
 *   pairs Node, Python and shells use for pipes stay allowed;
 * - unshare(2) and clone(2) asking for a new namespace, and setns(2) (EPERM);
 * - clone3(2) (ENOSYS: its flags sit behind a pointer the filter cannot read, and libc falls
 *   back to clone(2), as under Flatpak);
 * - io_uring (ENOSYS: its requests open sockets without socket(2); programs fall back);
 * - the kernel's keyrings, add_key(2), keyctl(2), request_key(2) (EPERM: the user's keyring is
 *   shared with every process of the user, and holds credentials);
 * - every system call of another architecture (i386 programs, whose socketcall(2) hides the
 *   family behind a pointer, and x32): the process is killed.
 * Arguments are compared on their low 32 bits: every flag and family compared is an int there.
 */

/** What a filter lets through beyond the fixed rules. */
export interface SeccompOptions {
  /** socket(AF_UNIX) and any socketpair: the policy's `unix_socket` rule. */
  unixSockets: boolean;
}

const instructionBytes = 8;

// Classic BPF opcodes (linux/filter.h) and seccomp's return values and data offsets (linux/seccomp.h).
const loadWord = 0x20; // BPF_LD | BPF_W | BPF_ABS
const andConstant = 0x54; // BPF_ALU | BPF_AND | BPF_K
const jumpEqual = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const jumpAtLeast = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const jumpAnyBit = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const returnConstant = 0x06; // BPF_RET | BPF_K

export const seccompReturn = { allow: 0x7fff0000, killProcess: 0x80000000, errno: 0x00050000 } as const;
const offsets = { nr: 0, arch: 4, argument: (index: number) => 16 + 8 * index } as const;

const errno = { EPERM: 1, ENOSYS: 38, EAFNOSUPPORT: 97 } as const;

const family = { unix: 1, inet: 2, inet6: 10, netlink: 16 } as const;
const socketTypeMask = 0xf;
const socketType = { stream: 1, seqpacket: 5 } as const;

/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; unshare(2) also takes CLONE_NEWTIME (0x80, a signal number's bits in clone(2)). */
const cloneNamespaceFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const unshareNamespaceFlags = cloneNamespaceFlags | 0x00000080;

/** The system call numbers the filter names, per architecture it knows. */
interface Architecture {
  audit: number;
  /** Numbers at or above this are another ABI on the same architecture (x32). */
  foreignFrom?: number;
  calls: Record<
    'socket' | 'socketpair' | 'unshare' | 'clone' | 'clone3' | 'setns' | 'ioUringSetup' | 'ioUringEnter' | 'ioUringRegister' | 'addKey' | 'requestKey' | 'keyctl',
    number
  >;
}

export const architectures: Readonly<Record<'x64' | 'arm64', Architecture>> = {
  x64: {
    audit: 0xc000003e, // AUDIT_ARCH_X86_64
    foreignFrom: 0x40000000, // __X32_SYSCALL_BIT
    calls: {
      socket: 41,
      socketpair: 53,
      clone: 56,
      addKey: 248,
      requestKey: 249,
      keyctl: 250,
      unshare: 272,
      setns: 308,
      ioUringSetup: 425,
      ioUringEnter: 426,
      ioUringRegister: 427,
      clone3: 435,
    },
  },
  arm64: {
    audit: 0xc00000b7, // AUDIT_ARCH_AARCH64
    calls: {
      unshare: 97,
      socket: 198,
      socketpair: 199,
      addKey: 217,
      requestKey: 218,
      keyctl: 219,
      clone: 220,
      setns: 268,
      ioUringSetup: 425,
      ioUringEnter: 426,
      ioUringRegister: 427,
      clone3: 435,
    },
  },
};

/** One instruction; a jump names the labels it goes to, resolved when the program is assembled. */
type Instruction = { code: number; k: number; whenTrue?: string; whenFalse?: string } | { label: string };

const load = (offset: number): Instruction => ({ code: loadWord, k: offset });
const give = (action: number): Instruction => ({ code: returnConstant, k: action });
const refuse = (code: number): Instruction => give(seccompReturn.errno | code);
const allow = give(seccompReturn.allow);

/** `if A == k goto whenTrue else goto whenFalse`; a missing target is the next instruction. */
const ifEqual = (k: number, whenTrue?: string, whenFalse?: string): Instruction => ({ code: jumpEqual, k, ...(whenTrue && { whenTrue }), ...(whenFalse && { whenFalse }) });

/**
 * The rules of one architecture, its labels prefixed with its name (classic BPF jumps only
 * forward, so every block ends with the returns its rules jump to).
 */
function architectureRules(name: string, arch: Architecture, options: SeccompOptions): Instruction[] {
  const { calls } = arch;
  const at = (label: string) => `${name}:${label}`;
  const equal = (k: number, whenTrue?: string, whenFalse?: string) => ifEqual(k, whenTrue && at(whenTrue), whenFalse && at(whenFalse));
  /** Entered when the call's number matches; each body ends in a return. */
  const rules = (call: string, number: number, body: readonly Instruction[]): Instruction[] => [equal(number, undefined, `after-${call}`), ...body, { label: at(`after-${call}`) }];
  const unixSocket = options.unixSockets ? [equal(family.unix, 'allow')] : [equal(family.unix, undefined, 'socket-other'), refuse(errno.EPERM), { label: at('socket-other') }];
  const socketpair = options.unixSockets
    ? [allow]
    : [
        load(offsets.argument(0)),
        equal(family.unix, undefined, 'refuse-family'),
        load(offsets.argument(1)),
        { code: andConstant, k: socketTypeMask },
        equal(socketType.stream, 'allow'),
        equal(socketType.seqpacket, 'allow'),
        refuse(errno.EPERM),
      ];
  const namespaces = (flags: number) => [load(offsets.argument(0)), { code: jumpAnyBit, k: flags, whenFalse: at('allow') }, refuse(errno.EPERM)];
  return [
    { label: at('start') },
    load(offsets.nr),
    ...(arch.foreignFrom === undefined ? [] : [{ code: jumpAtLeast, k: arch.foreignFrom, whenTrue: at('kill') }]),
    ...rules('socket', calls.socket, [
      load(offsets.argument(0)),
      equal(family.inet, 'allow'),
      equal(family.inet6, 'allow'),
      equal(family.netlink, 'allow'),
      ...unixSocket,
      refuse(errno.EAFNOSUPPORT),
    ]),
    ...rules('socketpair', calls.socketpair, socketpair),
    ...rules('unshare', calls.unshare, namespaces(unshareNamespaceFlags)),
    ...rules('clone', calls.clone, namespaces(cloneNamespaceFlags)),
    ...(['clone3', 'ioUringSetup', 'ioUringEnter', 'ioUringRegister'] as const).flatMap((call) => rules(call, calls[call], [refuse(errno.ENOSYS)])),
    ...(['setns', 'addKey', 'requestKey', 'keyctl'] as const).flatMap((call) => rules(call, calls[call], [refuse(errno.EPERM)])),
    { label: at('allow') },
    allow,
    { label: at('kill') },
    give(seccompReturn.killProcess),
    { label: at('refuse-family') },
    refuse(errno.EAFNOSUPPORT),
  ];
}

/** The whole program: the architecture first (a number means another call elsewhere), then its rules. */
function filterProgram(options: SeccompOptions): Instruction[] {
  const known = Object.entries(architectures);
  return [
    load(offsets.arch),
    ...known.map(([name, arch]) => ifEqual(arch.audit, `${name}:start`)),
    give(seccompReturn.killProcess),
    ...known.flatMap(([name, arch]) => architectureRules(name, arch, options)),
  ];
}

/**
 * Resolves labels into BPF's relative jumps and writes each `struct sock_filter` (u16 code, u8
 * jt, u8 jf, u32 k) little-endian, the byte order of both architectures the filter knows. A
 * label must lie after the jump and within 255 instructions of it: classic BPF jumps only forward.
 */
function assemble(program: readonly Instruction[]): Uint8Array {
  const positions = new Map<string, number>();
  const instructions: Exclude<Instruction, { label: string }>[] = [];
  for (const entry of program) {
    if ('label' in entry) positions.set(entry.label, instructions.length);
    else instructions.push(entry);
  }
  const bytes = Buffer.alloc(instructions.length * instructionBytes);
  instructions.forEach((instruction, index) => {
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = positions.get(label);
      const distance = target === undefined ? -1 : target - index - 1;
      if (distance < 0 || distance > 255) throw new ToolError('internal', `seccomp filter: jump from ${index} to ${label} is not a forward jump of at most 255`);
      return distance;
    };
    const at = index * instructionBytes;
    bytes.writeUInt16LE(instruction.code, at);
    bytes.writeUInt8(offset(instruction.whenTrue), at + 2);
    bytes.writeUInt8(offset(instruction.whenFalse), at + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, at + 4);
  });
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

const built = new Map<boolean, Uint8Array>();

/** The filter's bytes for these options, assembled once per process. */
export function seccompFilter(options: SeccompOptions): Uint8Array {
  let filter = built.get(options.unixSockets);
  if (!filter) built.set(options.unixSockets, (filter = assemble(filterProgram(options))));
  return filter;
}

/** Whether the filter knows the architecture this process runs on (Node's `process.arch`). */
export function filterKnowsArchitecture(arch: string = process.arch): boolean {
  return Object.hasOwn(architectures, arch);
}

/** A digest of both filters, for what a remembered probe depends on. */
export function seccompFilterDigest(): string {
  const hash = createHash('sha256');
  for (const unixSockets of [false, true]) hash.update(seccompFilter({ unixSockets }));
  return hash.digest('hex').slice(0, 16);
}
