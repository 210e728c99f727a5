// matrix-js-sdk logs a great deal (every sync, every queued event, crypto timings) through
// `loglevel` loggers named `matrix…`, and its Rust crypto traces to the console. Both are turned
// down and routed into Baton's logger: SDK errors and warnings become debug lines (many are
// routine: a retried sync, a state event for a room it has not seen yet), the rest trace lines.
// The adapter itself reports what an operator must see (sync lost, undecryptable messages).
import { format } from "node:util";
import loglevel from "loglevel";
import type { Logger as SdkLogger } from "matrix-js-sdk/lib/logger.js";

export interface LogSink {
  trace?(message: string): void;
  debug(message: string): void;
}

const SDK_LOGGER_PREFIX = "matrix";
let sink: LogSink | undefined;

/** Routes every `matrix…` loglevel logger (existing and future children) into `target`. */
export function routeMatrixSdkLogs(target: LogSink): void {
  sink = target;
  const factory: loglevel.MethodFactory =
    (method) =>
    (...args: unknown[]) =>
      write(method, args);
  for (const [name, logger] of Object.entries(loglevel.getLoggers())) {
    if (!name.startsWith(SDK_LOGGER_PREFIX)) continue;
    logger.methodFactory = factory;
    logger.setLevel("trace", false);
    logger.rebuild();
  }
}

/** A logger to hand to `createClient({ logger })`, writing to the same place. */
export function matrixSdkLogger(prefix = "matrix-js-sdk"): SdkLogger {
  const at =
    (method: string) =>
    (...args: unknown[]) =>
      write(method, [`${prefix}:`, ...args]);
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), getChild: (child: string) => matrixSdkLogger(`${prefix}:${child}`) };
}

function write(method: string, args: unknown[]): void {
  if (!sink) return;
  const line = format(...args);
  if (method === "error" || method === "warn") sink.debug(line);
  else sink.trace?.(line);
}

/**
 * The Rust crypto traces to the console, and initRustCrypto turns that on at debug level each time
 * it runs. Every `Tracing.turnOn()` is made to clamp the level to errors first: its warnings (a
 * message whose room key is missing, two lines each) were raw lines on stderr, outside the JSON
 * log a service reads, and the adapter reports undecryptable messages itself.
 */
export async function quietRustCryptoTracing(): Promise<void> {
  const wasm = await import("@matrix-org/matrix-sdk-crypto-wasm");
  const proto = wasm.Tracing.prototype as { turnOn(): void; __batonQuiet?: boolean };
  if (proto.__batonQuiet) return;
  const turnOn = proto.turnOn;
  proto.turnOn = function (this: InstanceType<typeof wasm.Tracing>) {
    this.minLevel = wasm.LoggerLevel.Error;
    turnOn.call(this);
  };
  proto.__batonQuiet = true;
}
