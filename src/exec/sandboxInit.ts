// What bwrap starts inside the sandbox before the script: a few lines of sh that run it and, when it fails, report
// which of the run's sized filesystems is full (the host cannot look once the sandbox is gone); and, for a
// networked run, a small node bridge in front that gives the script an HTTP proxy on its own loopback.
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import { NODE_CA_DEFERRED } from './egressCa.ts';
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
// proxy's unix socket, then runs the rest of its argv and exits as it does. It gets the CA for Node under
// NODE_CA_DEFERRED and hands it on as NODE_EXTRA_CA_CERTS: Node 20 loads its whole root store at start when that
// variable is set, which the bridge (no TLS of its own) would pay on every run with credentials.
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
  const env = { ...process.env };
  if (env.${NODE_CA_DEFERRED} !== undefined) env.NODE_EXTRA_CA_CERTS = env.${NODE_CA_DEFERRED};
  delete env.${NODE_CA_DEFERRED};
  const child = spawn(command, args, { stdio: [0, 1, 2, ${REPORT_FD}], env });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (require('node:os').constants.signals[signal] ?? 1)));
});`;

// A run without network gets a refuser instead, started beside the script rather than in front of it, so it costs
// the run no wait and no host process serves it: it listens where the proxy variables point, answers every request
// 403 "network is off for <skill> in this world", and reports `egress-off host:port` on REPORT_FD for the result.
// In python3 where the sandbox has it (it starts in a fraction of node's time, and most runs never use it), else in
// node. Double quotes only (it sits in single quotes in sh); the skill's name is its argument.
const REFUSER_PY = `import os, socket, sys, threading
name = sys.argv[1]
def serve(client):
    try:
        client.settimeout(10)
        head = b""
        while b"\\r\\n\\r\\n" not in head and len(head) < 8192:
            data = client.recv(4096)
            if not data: break
            head += data
        words = head.split(b"\\r\\n", 1)[0].decode("latin-1").split(" ")
        target = words[1] if len(words) > 1 else ""
        if words[0].upper() != "CONNECT":
            target = target.split("://", 1)[-1].split("/", 1)[0]
            if ":" not in target.rsplit("]", 1)[-1]: target += ":80"
        os.write(${REPORT_FD}, ("egress-off %s\\n" % target).encode("latin-1", "replace"))
        body = ("network is off for %s in this world: skillbot did not connect to %s. An operator allows it with \`network: [%s]\` in SKILLBOT_CONFIG, which opens the network to every run of %s in this world.\\n" % (name, target, name, name)).encode()
        client.sendall(b"HTTP/1.1 403 Forbidden\\r\\ncontent-type: text/plain\\r\\nconnection: close\\r\\ncontent-length: %d\\r\\n\\r\\n" % len(body) + body)
    except OSError: pass
    client.close()
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", ${PROXY_PORT}))
server.listen(64)
while True:
    threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()`;
const REFUSER_JS = `const net = require("node:net");
const fs = require("node:fs");
const name = process.argv[1];
net.createServer((client) => {
  let head = "";
  client.setTimeout(10000, () => client.destroy());
  client.on("error", () => undefined);
  client.on("data", (chunk) => {
    head += chunk.toString("latin1");
    if (!head.includes("\\r\\n\\r\\n") && head.length < 8192) return;
    client.removeAllListeners("data");
    const words = head.split("\\r\\n", 1)[0].split(" ");
    let target = words[1] ?? "";
    if (words[0].toUpperCase() !== "CONNECT") {
      target = target.split("://").pop().split("/")[0];
      if (!target.split("]").pop().includes(":")) target += ":80";
    }
    try { fs.writeSync(${REPORT_FD}, "egress-off " + target + "\\n"); } catch {}
    const body = "network is off for " + name + " in this world: skillbot did not connect to " + target + ". An operator allows it with \`network: [" + name + "]\` in SKILLBOT_CONFIG, which opens the network to every run of " + name + " in this world.\\n";
    client.end("HTTP/1.1 403 Forbidden\\r\\ncontent-type: text/plain\\r\\nconnection: close\\r\\ncontent-length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body);
  });
}).listen(${PROXY_PORT}, "127.0.0.1");`;

/** The sh line that starts the refuser of a run without network: python3 when the sandbox has it, else node. */
function refuser(nodePath: string, name: string): string {
  const quiet = `${shellQuote(name)} </dev/null >/dev/null 2>&1 &`;
  return `if command -v python3 >/dev/null; then python3 -S -I -c '${REFUSER_PY}' ${quiet} else ${shellQuote(nodePath)} -e '${REFUSER_JS}' ${quiet} fi\n`;
}

/**
 * The argv bwrap runs: [bridge →] wrapper → interpreter and script. `network`: the script starts once the bridge to
 * the egress socket listens (a networked run), or, with `offFor` (a run without network), a refuser starts beside
 * it. `gated`: the first of them waits on GATE_FD (cgroup mode), which the bot closes once the process is in the
 * run's cgroup.
 */
export function innerCommand(command: string[], network: { nodePath: string; offFor?: string } | undefined, gated = false): string[] {
  if (network !== undefined && network.offFor === undefined) {
    return [network.nodePath, '-e', `${gated ? NODE_GATE : ''}${BRIDGE}`, '--', '/bin/sh', '-c', WRAPPER, 'skillbot-run', ...command];
  }
  const beside = network?.offFor === undefined ? '' : refuser(network.nodePath, network.offFor);
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

/** Where a run without network tried to go, as its refuser reported (`egress-off host:port`): names only, at most 20. */
export function triedWithoutNetwork(report: string): string[] {
  const tried: string[] = [];
  for (const line of report.split('\n')) {
    const where = /^egress-off ([A-Za-z0-9._:[\]-]{1,300})$/.exec(line)?.[1];
    if (where !== undefined && !tried.includes(where) && tried.length < 20) tried.push(where);
  }
  return tried;
}

/**
 * Hosts that name XML vocabularies: a document's namespace or schema location (`http://purl.org/dc/elements/1.1/`,
 * an OOXML schema importing dublincore.org's). A parser that tries to fetch one is not a connection the run
 * needs (it goes on without it), so it is never reported as one.
 */
const XML_VOCABULARY_HOSTS = ['w3.org', 'purl.org', 'purl.oclc.org', 'dublincore.org', 'schemas.openxmlformats.org', 'schemas.microsoft.com', 'ns.adobe.com', 'xmlns.com'];

function namesXmlVocabulary(where: string): boolean {
  const host = where.replace(/:\d+$/, '').toLowerCase();
  return XML_VOCABULARY_HOSTS.some((known) => host === known || host.endsWith(`.${known}`));
}

/**
 * The notice for a run without network that tried to reach `tried`: where, how an operator allows it, and that
 * allowing it opens the network to every run of that skill (or every shell command) in the world, not this run
 * alone. Undefined when it only reached for XML vocabularies.
 */
export function networkOffSentence(name: string, tried: readonly string[]): string | undefined {
  const real = tried.filter((where) => !namesXmlVocabulary(where));
  if (real.length === 0) return undefined;
  const widens = name === 'bash' ? 'every shell command in this world' : `every run of ${name} in this world`;
  return `network is off for ${name} in this world: it tried to reach ${real.join(', ')}. An operator allows it with \`network: [${name}]\` in SKILLBOT_CONFIG, which opens the network (public addresses, through the egress proxy) to ${widens}.`;
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
