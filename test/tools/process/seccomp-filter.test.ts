import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { architectures, seccompFilter, seccompReturn } from '../../../src/tools/process/sandbox/bubblewrap/seccomp-filter.js';

/**
 * Runs a classic BPF program as the kernel runs a seccomp filter, on one `struct seccomp_data`
 * (nr, arch, instruction pointer, six arguments), and returns the action. Only the instructions
 * rho's filter may use are known: any other one fails the test, as the kernel would refuse it.
 */
function runFilter(filter: Uint8Array, data: { nr: number; arch: number; args?: readonly number[] }): number {
  const bytes = Buffer.from(filter.buffer, filter.byteOffset, filter.byteLength);
  const input = Buffer.alloc(64);
  input.writeInt32LE(data.nr, 0);
  input.writeUInt32LE(data.arch, 4);
  for (const [index, value] of (data.args ?? []).entries()) input.writeBigUInt64LE(BigInt.asUintN(64, BigInt(value)), 16 + 8 * index);
  let accumulator = 0;
  for (let pc = 0; pc < bytes.length / 8; pc++) {
    const code = bytes.readUInt16LE(pc * 8);
    const jt = bytes.readUInt8(pc * 8 + 2);
    const jf = bytes.readUInt8(pc * 8 + 3);
    const k = bytes.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        expect(k % 4).toBe(0);
        accumulator = input.readUInt32LE(k);
        break;
      case 0x54:
        accumulator = (accumulator & k) >>> 0;
        break;
      case 0x15:
        pc += accumulator === k ? jt : jf;
        break;
      case 0x35:
        pc += accumulator >= k ? jt : jf;
        break;
      case 0x45:
        pc += (accumulator & k) !== 0 ? jt : jf;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`instruction ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('the program ran past its end');
}

const errno = (code: number) => (seccompReturn.errno | code) >>> 0;
const EPERM = errno(1);
const ENOSYS = errno(38);
const EAFNOSUPPORT = errno(97);
const allowed = seccompReturn.allow;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_SEQPACKET = 5;
const SOCK_CLOEXEC = 0o2000000;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNET = 0x40000000;
const CLONE_NEWTIME = 0x80;
const threadFlags = 0x3d0f00; // CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM | SETTLS | PARENT_SETTID | CHILD_CLEARTID
const SIGCHLD = 17;

describe('the seccomp filter of confined processes', () => {
  for (const [name, arch] of Object.entries(architectures)) {
    const call = (filter: Uint8Array, syscall: keyof typeof arch.calls, ...args: number[]) => runFilter(filter, { nr: arch.calls[syscall], arch: arch.audit, args });
    const strict = seccompFilter({ unixSockets: false });
    const open = seccompFilter({ unixSockets: true });

    describe(name, () => {
      it('refuses unix sockets, and families other than IP and netlink, and allows the rest', () => {
        expect(call(strict, 'socket', AF_UNIX, SOCK_STREAM)).toBe(EPERM);
        expect(call(strict, 'socket', AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)).toBe(EPERM);
        // The family is an int: bits above it do not hide it.
        expect(call(strict, 'socket', 2 ** 32 + AF_UNIX, SOCK_STREAM)).toBe(EPERM);
        expect(call(strict, 'socket', AF_VSOCK, SOCK_STREAM)).toBe(EAFNOSUPPORT);
        for (const family of [AF_INET, AF_INET6, AF_NETLINK]) expect(call(strict, 'socket', family, SOCK_STREAM)).toBe(allowed);
        expect(call(open, 'socket', AF_UNIX, SOCK_STREAM)).toBe(allowed);
        expect(call(open, 'socket', AF_VSOCK, SOCK_STREAM)).toBe(EAFNOSUPPORT);
      });

      it('allows the connected stream pairs programs use for pipes, never a datagram pair', () => {
        expect(call(strict, 'socketpair', AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)).toBe(allowed);
        expect(call(strict, 'socketpair', AF_UNIX, SOCK_SEQPACKET)).toBe(allowed);
        expect(call(strict, 'socketpair', AF_UNIX, SOCK_DGRAM)).toBe(EPERM);
        expect(call(strict, 'socketpair', AF_INET, SOCK_STREAM)).toBe(EAFNOSUPPORT);
        expect(call(open, 'socketpair', AF_UNIX, SOCK_DGRAM)).toBe(allowed);
      });

      it('refuses new namespaces, joining one, clone3, io_uring and the keyrings; threads and forks go on', () => {
        for (const filter of [strict, open]) {
          expect(call(filter, 'unshare', CLONE_NEWUSER)).toBe(EPERM);
          expect(call(filter, 'unshare', CLONE_NEWTIME)).toBe(EPERM);
          expect(call(filter, 'unshare', 0x400 /* CLONE_FILES */)).toBe(allowed);
          expect(call(filter, 'clone', CLONE_NEWUSER | SIGCHLD)).toBe(EPERM);
          expect(call(filter, 'clone', CLONE_NEWNET | SIGCHLD)).toBe(EPERM);
          expect(call(filter, 'clone', threadFlags)).toBe(allowed);
          expect(call(filter, 'clone', SIGCHLD)).toBe(allowed);
          expect(call(filter, 'clone3')).toBe(ENOSYS);
          expect(call(filter, 'ioUringSetup')).toBe(ENOSYS);
          for (const syscall of ['setns', 'keyctl', 'addKey', 'requestKey'] as const) expect(call(filter, syscall)).toBe(EPERM);
        }
      });

      it('allows every system call it does not name', () => {
        const named = new Set(Object.values(arch.calls));
        fc.assert(
          fc.property(
            fc.integer({ min: 0, max: 1000 }).filter((nr) => !named.has(nr)),
            fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 6 }),
            (nr, args) => {
              expect(runFilter(strict, { nr, arch: arch.audit, args })).toBe(allowed);
            },
          ),
        );
      });
    });
  }

  it('kills a process that uses another architecture or the x32 ABI', () => {
    const strict = seccompFilter({ unixSockets: false });
    const i386 = 0x40000003;
    // i386's socketcall(2) multiplexes socket(2) behind a pointer the filter cannot read.
    expect(runFilter(strict, { nr: 102, arch: i386, args: [1] })).toBe(seccompReturn.killProcess);
    expect(runFilter(strict, { nr: 0x40000000 + 41, arch: architectures.x64.audit, args: [AF_UNIX] })).toBe(seccompReturn.killProcess);
  });
});
