// Preloaded into the Baton process under benchmark (`node --import bench/probe.mjs`): measures its
// event-loop delay with perf_hooks.monitorEventLoopDelay, notes when Baton writes each session/prompt
// line into an agent's stdin pipe (as the write starts), runs a memory-reducing GC when asked, and answers
// the bench over the IPC channel. Loaded only by `npm run bench`; Baton itself knows nothing of it.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * The histogram records the whole interval between two ticks of a `resolution` ms timer; the
 * delay is what exceeds the resolution. A short resolution samples often and keeps that
 * subtraction small against what is measured.
 */
const RESOLUTION_MS = 2;
const NS_PER_MS = 1e6;
let histogram;

/** [monotonic ms, the line] of every session/prompt line written to an agent (the bench finds its probe id in it). */
const promptWrites = [];
const spawn = childProcess.spawn;
childProcess.spawn = function spawnNotingPrompts(...args) {
  const child = spawn.apply(this, args);
  const stdin = child.stdin;
  if (stdin) {
    const write = stdin.write;
    stdin.write = function writeNotingPrompts(chunk, ...rest) {
      // Noted as the write starts: the line is in the pipe once the write's syscall is done, and
      // the agent on the other core can read it before that call has returned here.
      if (typeof chunk === "string" && chunk.includes('"session/prompt"')) promptWrites.push([Number(process.hrtime.bigint()) / NS_PER_MS, chunk]);
      return write.call(this, chunk, ...rest);
    };
  }
  return child;
};
// Baton imports spawn as an ES module binding: make it see the wrapped one.
syncBuiltinESMExports();

const answers = {
  "loop-start": () => {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    return { ok: true };
  },
  "loop-stop": () => {
    histogram.disable();
    const delay = (p) => Math.max(0, histogram.percentile(p) / NS_PER_MS - RESOLUTION_MS);
    return { count: histogram.count, p50: delay(50), p99: delay(99), max: Math.max(0, histogram.max / NS_PER_MS - RESOLUTION_MS) };
  },
  memory: () => process.memoryUsage(),
  // V8's most thorough collection (what it runs before giving up on an allocation): compacts and
  // gives free pages back. A fresh process otherwise settles on one of two levels about 9 MB apart,
  // before or after V8's memory reducer has run, so two processes compared could be on different ones.
  "reduce-memory": () => {
    setFlagsFromString("--expose-gc");
    runInNewContext("gc")({ type: "major", execution: "sync", flavor: "last-resort" });
    return { ok: true };
  },
  "prompt-writes": () => ({ writes: promptWrites }),
};

if (process.send) {
  process.on("message", (message) => {
    const answer = answers[message?.cmd];
    process.send({ id: message?.id, ...(answer ? answer() : { error: `unknown probe command ${message?.cmd}` }) });
  });
  // The channel must not keep Baton alive on its own: Baton decides when it exits.
  process.channel?.unref();
}
