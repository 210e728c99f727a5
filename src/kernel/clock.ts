// A clock that two processes on one machine can compare: process.hrtime reads CLOCK_MONOTONIC,
// which is system-wide, so a time taken in Baton, in an agent and in a test fake subtracts
// exactly (performance.now() counts from each process's own start and does not).

/** Milliseconds on the machine's monotonic clock, with sub-microsecond resolution. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
