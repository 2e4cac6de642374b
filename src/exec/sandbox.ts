// How a skill process is started inside bubblewrap: the mounts it sees, its namespaces, its environment.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { type RunTrust, TRUST_INSIDE } from './egressCa.ts';
import { ALIAS_DIR, PROGRAM_ALIASES, SANDBOX_PATH, SANDBOX_PATHS, skillPathInside } from '../config/sandboxPaths.ts';

/** A networked run's only way out, inside: the egress proxy's unix socket (see egressProxy.ts). */
export const EGRESS_SOCKET_INSIDE = '/run/skillbot/egress.sock';

/** Sizes, in bytes, of the run's writable filesystems (RAM-backed tmpfs, so they bound memory as well as disk). */
export interface MountSizes {
  home: number;
  tmp: number;
  shm: number;
}

/** What the host folders of one run are, to be bound at SANDBOX_PATHS. */
export interface SandboxLayout {
  /** Skill folders (verified copies), each mounted read-only at /skills/<id>. */
  skills: ReadonlyArray<{ id: string; dir: string }>;
  /** The chat's workspace, mounted read-write at /workspace. */
  workspace?: string;
  /** The working directory inside. */
  cwd: string;
  /** HOME, /tmp and /dev/shm are sized tmpfs of the sandbox's own. */
  sizes: MountSizes;
  /** The run's own /etc/passwd and /etc/group, naming only the sandbox user. */
  passwd: string;
  group: string;
  /** The run's /etc/hosts (localhost and the sandbox's hostname; hostsFile()). */
  hosts?: string;
  /**
   * Host path of the run's egress proxy socket (named egress.sock, alone in a folder of its own, which is bound):
   * a networked run's only way out, or (without `networked`) the proxy that tells a run without network that it
   * has none. Without it nothing answers at all.
   */
  egressSocket?: string;
  /** The run may reach the network (through the egress socket): name resolution and TLS trust are mounted. */
  networked?: boolean;
  /** A run with credentials: the installation CA's certificate and the bundle with it, trusted inside (egressCa.ts). */
  trust?: RunTrust;
  /** The fd on which bwrap reports the host pid of the sandbox's init (so a timeout can kill it, see supervise.ts). */
  infoFd?: number;
}

// The parts of /etc that sh, bash, python3 and node need to start and resolve names and locales, and the
// configuration programs read as they start (fonts, LibreOffice, ImageMagick, paper size), read-only.
const ETC_ALWAYS = [
  'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'nsswitch.conf', 'localtime', 'alternatives', 'mime.types',
  'fonts', 'libreoffice', 'papersize', 'ImageMagick-6', 'ImageMagick-7',
];
// Only with network: name resolution and TLS trust (/etc/hosts is the run's own, hostsFile()).
const ETC_NETWORK = ['resolv.conf', 'host.conf', 'gai.conf', 'ssl', 'ca-certificates', 'ca-certificates.conf', 'pki', 'crypto-policies'];

/** The sandbox's hostname (bwrap --hostname), which its /etc/hosts names. */
const SANDBOX_HOSTNAME = 'sandbox';

/** Every run's /etc/hosts: `localhost` and the sandbox's own name are its own loopback, as on any machine. */
export function hostsFile(): string {
  return `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t${SANDBOX_HOSTNAME}\n`;
}

/**
 * The host's system folders as bwrap arguments, found once: /usr read-only, /bin, /sbin and /lib* as the host
 * has them (symlinks into /usr on merged-/usr systems, read-only binds otherwise), and the folder of the running
 * node when it lives outside /usr (so `.js` scripts run with the bot's node).
 */
export function systemMounts(nodePath: string = process.execPath): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const host = `/${name}`;
    const info = lstatOrUndefined(host);
    if (info === undefined) continue;
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(host), host);
    else if (info.isDirectory()) args.push('--ro-bind', host, host);
  }
  args.push(...programAliases());
  const nodePrefix = path.dirname(path.dirname(realpathOr(nodePath)));
  const covered = ['/usr', '/bin', '/sbin', '/lib', '/lib64'].some((dir) => nodePrefix === dir || nodePrefix.startsWith(`${dir}/`));
  if (!covered && nodePrefix !== '/') args.push('--ro-bind', nodePrefix, nodePrefix);
  return args;
}

/** The whole bwrap argv before `--` and the command. */
export function bwrapArgs(layout: SandboxLayout, system: string[]): string[] {
  const network = layout.networked === true && layout.egressSocket !== undefined;
  const etc = [...ETC_ALWAYS, ...(network ? ETC_NETWORK : [])].flatMap((name) => ['--ro-bind-try', `/etc/${name}`, `/etc/${name}`]);
  const sized = (bytes: number, dir: string) => ['--size', String(bytes), '--tmpfs', dir];
  return [
    // Namespaces: new user, pid, ipc, uts, cgroup and network ones, always: the host's network is never shared (a
    // networked run reaches out only through the egress socket below). bwrap 0.8 needs --unshare-user spelled
    // out for --disable-userns, which keeps the script from making nested namespaces of its own.
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    // No init of bwrap's own inside: bwrap outside exits on its init's report and may not reap it first, so with the
    // bot as PID 1 every run left a zombie. The wrapper (sandboxInit.ts) is PID 1 instead, and its end ends the rest.
    '--as-pid-1',
    '--new-session',
    // Run as root (as in CI), bwrap would keep capabilities, and a script could remount its folder writable.
    '--cap-drop',
    'ALL',
    '--hostname',
    SANDBOX_HOSTNAME,
    ...(layout.infoFd === undefined ? [] : ['--info-fd', String(layout.infoFd)]),
    ...etc,
    '--ro-bind',
    layout.passwd,
    '/etc/passwd',
    '--ro-bind',
    layout.group,
    '/etc/group',
    ...(layout.hosts === undefined ? [] : ['--ro-bind', layout.hosts, '/etc/hosts']),
    // Writable places, each a sized tmpfs, so a run cannot fill the host's memory or disk: /dev itself is made
    // read-only once /dev/shm is in it (bwrap's /dev is a tmpfs the sandbox user owns).
    '--dev',
    '/dev',
    ...sized(layout.sizes.shm, '/dev/shm'),
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    ...sized(layout.sizes.home, SANDBOX_PATHS.home),
    ...sized(layout.sizes.tmp, SANDBOX_PATHS.tmp),
    // The socket's folder, not the socket: the egress process may make the socket while bwrap sets the sandbox up.
    ...(layout.egressSocket === undefined ? [] : ['--ro-bind', path.dirname(layout.egressSocket), path.posix.dirname(EGRESS_SOCKET_INSIDE)]),
    // The CA's certificate (never its key), and the system bundle with it appended over the system's own.
    ...(layout.trust === undefined ? [] : ['--ro-bind', layout.trust.dir, TRUST_INSIDE.dir]),
    ...(layout.trust?.systemFile === undefined || !network ? [] : ['--ro-bind', layout.trust.bundle, layout.trust.systemFile]),
    // The chat's workspace and the skills: separate mounts, so the read-only root below leaves them as they are.
    ...(layout.workspace === undefined ? [] : ['--bind', layout.workspace, SANDBOX_PATHS.workspace]),
    ...layout.skills.flatMap((skill) => ['--ro-bind', skill.dir, skillPathInside(skill.id)]),
    // Last, so a node installed under /tmp or a home folder is not hidden by the run's own /tmp and HOME.
    ...system,
    // Then the root (bwrap's own unbounded tmpfs) goes read-only: nothing is written but in the sized mounts.
    '--remount-ro',
    '/',
    '--chdir',
    layout.cwd,
  ];
}

/**
 * The host's global Node package folders the sandbox shows (read-only, under /usr or the mounted node's prefix):
 * where `npm install -g` puts a package, and Debian's node-* packages. Node looks in none of them by itself, so
 * they become NODE_PATH and a package installed as the dependency advice says is found by a skill's script.
 */
export function globalNodeModules(nodePath: string = process.execPath): string[] {
  const prefix = path.dirname(path.dirname(realpathOr(nodePath)));
  const candidates = [path.join(prefix, 'lib', 'node_modules'), '/usr/local/lib/node_modules', '/usr/lib/node_modules', '/usr/share/nodejs'];
  return [...new Set(candidates)].filter((dir) => lstatOrUndefined(dir)?.isDirectory() === true);
}

/** The environment of bwrap itself and so of everything inside (the wrapper, PID 1 there, has it: its environ is readable). */
export function sandboxEnv(parent: NodeJS.ProcessEnv, configured: Record<string, string>, workspace: boolean, nodePath?: string): Record<string, string> {
  const nodeModules = nodePath === undefined ? [] : globalNodeModules(nodePath);
  return {
    PATH: SANDBOX_PATH,
    LANG: parent.LANG ?? 'C.UTF-8',
    ...(nodeModules.length === 0 ? {} : { NODE_PATH: nodeModules.join(':') }),
    ...configured,
    HOME: SANDBOX_PATHS.home,
    TMPDIR: SANDBOX_PATHS.tmp,
    ...(workspace ? { SKILLBOT_INPUT_DIR: SANDBOX_PATHS.workspace, SKILLBOT_OUTPUT_DIR: SANDBOX_PATHS.outputs } : {}),
  };
}

/** The sandbox's /etc/passwd and /etc/group: the sandbox user and nobody, none of the host's accounts. */
export function identityFiles(uid: number, gid: number): { passwd: string; group: string } {
  return {
    passwd: `sandbox:x:${uid}:${gid}:skill sandbox:${SANDBOX_PATHS.home}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `sandbox:x:${gid}:\nnogroup:x:65534:\n`,
  };
}

/** The sandbox's links for PROGRAM_ALIASES the host lacks (`python` → the host's python3), in ALIAS_DIR. */
function programAliases(): string[] {
  const onPath = (name: string) =>
    SANDBOX_PATH.split(':')
      .filter((dir) => dir !== ALIAS_DIR)
      .map((dir) => path.join(dir, name))
      .find((candidate) => lstatOrUndefined(candidate) !== undefined);
  const links = Object.entries(PROGRAM_ALIASES).flatMap(([name, target]) => {
    const found = onPath(target);
    return onPath(name) === undefined && found !== undefined ? ['--symlink', found, `${ALIAS_DIR}/${name}`] : [];
  });
  return links.length === 0 ? [] : ['--dir', ALIAS_DIR, ...links];
}

function lstatOrUndefined(target: string) {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}

function realpathOr(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}
