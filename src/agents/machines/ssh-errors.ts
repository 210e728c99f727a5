// What ssh's own error output means, told to the person in the chat with what would fix it.
// ssh exits 255 for its own failures; everything else is the remote command's exit code.
import { MachineError } from "./types.js";

export const SSH_FAILED = 255;

export interface SshTarget {
  /** The machine's name in the config. */
  name: string;
  destination: string;
  port?: number;
  identityFile?: string;
  knownHosts?: string;
}

/** `ssh -p 2222 dev@build`: how a person reaches the machine to look for themselves. */
export function loginCommand(target: SshTarget): string {
  return ["ssh", ...(target.port ? ["-p", String(target.port)] : []), ...(target.identityFile ? ["-i", target.identityFile] : []), target.destination].join(" ");
}

/** The last meaningful line of ssh's stderr (its debug noise and blank lines dropped). */
export function lastLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("debug") && !/^Warning: Permanently added/.test(l));
  return lines.at(-1) ?? "";
}

/** Why ssh could not connect or authenticate, with the fix; undefined when the output says neither. */
function describeConnectFailure(target: SshTarget, stderr: string): string | undefined {
  const { name } = target;
  const hostSpec = target.port ? `[host]:${target.port}` : "host";
  const knownHosts = target.knownHosts ?? "~/.ssh/known_hosts";
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return (
      `${name}'s host key has CHANGED since it was recorded in ${knownHosts}, so Baton did not connect (this can mean someone is intercepting the connection). ` +
      `If the machine was really reinstalled, check its new key's fingerprint with its owner, remove the old key with \`ssh-keygen -R '${hostSpec}' -f ${knownHosts}\` and connect once with \`${loginCommand(target)}\`.`
    );
  }
  if (/Host key verification failed|No \S+ host key is known|host key is not known/i.test(stderr)) {
    return (
      `Baton does not know ${name}'s host key, so it did not connect (host-key checking stays on). ` +
      `Check the key's fingerprint with the machine's owner, then add it to ${knownHosts}: connect once with \`${loginCommand(target)}\` and confirm, ` +
      `or \`ssh-keyscan${target.port ? ` -p ${target.port}` : ""} <host> >> ${knownHosts}\` after verifying it.`
    );
  }
  if (/Permission denied \(|Too many authentication failures|no mutual signature/i.test(stderr)) {
    return (
      `${name} refused Baton's key (${lastLine(stderr)}). Add the public key${target.identityFile ? ` ${target.identityFile}.pub` : ""} to ~/.ssh/authorized_keys of the user in \`${target.destination}\` there, ` +
      `${target.identityFile ? "" : `or set machines.${name}.identity_file, `}then send the message again.`
    );
  }
  if (/Could not resolve hostname|Name or service not known|nodename nor servname/i.test(stderr)) {
    return `Cannot find ${name}: ${lastLine(stderr)}. Check machines.${name}.ssh in the config.`;
  }
  if (/Connection refused|Connection timed out|timed out|No route to host|Network is unreachable|Connection reset|Connection closed by|kex_exchange_identification/i.test(stderr)) {
    return `Cannot reach ${name} (${lastLine(stderr)}). Is it on, and is its SSH server running? The thread is kept: send the message again when ${name} is back.`;
  }
  return undefined;
}

export function connectError(target: SshTarget, stderr: string, code: number | null): MachineError {
  const known = describeConnectFailure(target, stderr);
  const text = known ?? `Could not connect to ${target.name} with ssh (${lastLine(stderr) || `exit code ${code ?? "none"}`}). Try \`${loginCommand(target)}\` in a terminal to see why.`;
  return new MachineError(text, { detail: `ssh to ${target.destination} failed (${code}): ${lastLine(stderr)}` });
}

/** A session over an established connection ended with ssh's own failure: the connection dropped. */
export function lostConnectionText(target: SshTarget, stderr: string): string {
  const known = describeConnectFailure(target, stderr);
  if (known) return known;
  const why = lastLine(stderr);
  return `Lost the connection to ${target.name}${why ? ` (${why})` : ""}: the machine went away or the network dropped.`;
}
