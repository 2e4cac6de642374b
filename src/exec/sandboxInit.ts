// What bwrap starts inside the sandbox before the script: a few lines of sh that run it and, when it fails, report
// which of the run's sized filesystems is full (the host cannot look once the sandbox is gone); and, for a
// networked run, a small node bridge in front that gives the script an HTTP proxy on its own loopback.
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import { EGRESS_SOCKET_INSIDE } from './sandbox.ts';

/** The fd (inherited through bwrap) on which the sh wrapper reports the filesystems; the script never has it. */
export const REPORT_FD = 3;
/** The fd on which bwrap writes its `--info-fd` JSON (the host pid of the sandbox's init). */
export const INFO_FD = 4;
/**
 * In cgroup mode, the fd on which the sandbox's first process waits until the bot has moved it into the run's
 * cgroup, so nothing of the script forks outside it; the script never has it.
 */
export const GATE_FD = 5;
/** The loopback port, inside the sandbox's own network namespace, where the bridge listens. */
export const PROXY_PORT = 3128;

/** The filesystems a run writes to, each a sized tmpfs. */
export const SIZED_MOUNTS = [SANDBOX_PATHS.tmp, SANDBOX_PATHS.home, '/dev/shm'] as const;

// A missing or unrunnable interpreter is told in bwrap's own words, which spawnRun already turns into a reason.
// The script runs as a background job of a shell whose own stderr is /dev/null, so the shell never adds "Killed"
// to the script's stderr; its stdin is handed over explicitly (a background job would get /dev/null).
const WRAPPER = `case $1 in
*/*) if [ ! -e "$1" ]; then m='No such file or directory'; elif [ ! -x "$1" ] || [ -d "$1" ]; then m='Permission denied'; fi ;;
*) command -v "$1" >/dev/null || m='No such file or directory' ;;
esac
if [ -n "\${m-}" ]; then printf 'bwrap: execvp %s: %s\\n' "$1" "$m" >&2; exit 1; fi
exec 4>&2 5<&0 2>/dev/null
"$@" 0<&5 2>&4 5<&- 4>&- ${REPORT_FD}>&- &
wait $!
rc=$?
[ $rc -eq 0 ] || stat -f -c '%n %a %S' ${SIZED_MOUNTS.join(' ')} >&${REPORT_FD}
exit $rc`;

const SHELL_GATE = `read -r _ <&${GATE_FD} || exit 1; exec ${GATE_FD}<&-\n`;

// Holds node before it starts anything: a failed read, or the gate closed without its newline (the bot could not
// move the run), ends the run rather than run it outside its cgroup.
const NODE_GATE = `try { if (require('node:fs').readSync(${GATE_FD}, Buffer.alloc(1)) !== 1) process.exit(1); require('node:fs').closeSync(${GATE_FD}); } catch { process.exit(1); }\n`;

// Runs with the bot's node inside the sandbox: listens on 127.0.0.1:PORT and pipes every connection to the egress
// proxy's unix socket, then runs the rest of its argv and exits as it does.
const BRIDGE = `const net = require('node:net');
const { spawn } = require('node:child_process');
const server = net.createServer((client) => {
  const upstream = net.connect(${JSON.stringify(`${EGRESS_SOCKET_INSIDE}`)});
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(${PROXY_PORT}, '127.0.0.1', () => {
  const [command, ...args] = process.argv.slice(1);
  const child = spawn(command, args, { stdio: [0, 1, 2, ${REPORT_FD}] });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (require('node:os').constants.signals[signal] ?? 1)));
});`;

// The same bridge for a run without network, started beside the script rather than in front of it, so it costs the
// run no wait: the proxy behind it answers every request with "network is off". In python3 where the sandbox has
// it (it starts in a fraction of node's time, and most runs never use it), else in node. Double quotes only (it
// sits in single quotes in sh); its output goes nowhere and it has no fd of the wrapper's.
const BACKGROUND_BRIDGE_PY = `import socket, threading
def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data: break
            b.sendall(data)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
def serve(client):
    upstream = socket.socket(socket.AF_UNIX)
    try: upstream.connect(${JSON.stringify(EGRESS_SOCKET_INSIDE)})
    except OSError: client.close(); return
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    pipe(upstream, client)
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", ${PROXY_PORT}))
server.listen(64)
while True:
    threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()`;
const BACKGROUND_BRIDGE_JS = `const net = require("node:net");
net.createServer((client) => {
  const upstream = net.connect(${JSON.stringify(EGRESS_SOCKET_INSIDE)});
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.pipe(upstream).pipe(client);
}).listen(${PROXY_PORT}, "127.0.0.1");`;

/** The sh lines that start the background bridge: python3 when the sandbox has it, else the bot's node. */
function backgroundBridge(nodePath: string): string {
  const quiet = `</dev/null >/dev/null 2>&1 ${REPORT_FD}>&-`;
  return `if command -v python3 >/dev/null; then python3 -S -I -c '${BACKGROUND_BRIDGE_PY}' ${quiet} & else ${shellQuote(nodePath)} -e '${BACKGROUND_BRIDGE_JS}' ${quiet} & fi\n`;
}

/**
 * The argv bwrap runs: [bridge →] wrapper → interpreter and script. `bridge`: the run has an egress proxy; with
 * `waitForIt` (a networked run, the default) the script starts once the bridge listens, else (a run without
 * network, told so by the proxy) the bridge starts beside it. `gated`: the first of them waits on GATE_FD (cgroup
 * mode), which the bot closes once the process is in the run's cgroup.
 */
export function innerCommand(command: string[], bridge: { nodePath: string; waitForIt?: boolean } | undefined, gated = false): string[] {
  if (bridge !== undefined && bridge.waitForIt !== false) {
    return [bridge.nodePath, '-e', `${gated ? NODE_GATE : ''}${BRIDGE}`, '--', '/bin/sh', '-c', WRAPPER, 'skillbot-run', ...command];
  }
  const beside = bridge === undefined ? '' : backgroundBridge(bridge.nodePath);
  return ['/bin/sh', '-c', `${gated ? SHELL_GATE : ''}${beside}${WRAPPER}`, 'skillbot-run', ...command];
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The variables that point ordinary tools (curl, pip, python, wget) at the bridge. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: 'localhost,127.0.0.1,::1',
    no_proxy: 'localhost,127.0.0.1,::1',
    // Node 24+ has fetch honour the variables above with this set; older node ignores it.
    NODE_USE_ENV_PROXY: '1',
  };
}

/** Which sized mounts the wrapper found full ("/tmp 0 4096" lines: available blocks, block size). */
export function fullMounts(report: string): string[] {
  const full: string[] = [];
  for (const line of report.split('\n')) {
    const [mount, available, blockSize] = line.trim().split(/\s+/);
    if (mount === undefined || available === undefined || blockSize === undefined) continue;
    if (!(SIZED_MOUNTS as readonly string[]).includes(mount)) continue;
    if (Number(available) * Number(blockSize) < 64 * 1024) full.push(mount);
  }
  return full;
}
