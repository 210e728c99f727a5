// A process that campaigns for the leadership and prints its epoch when it leads; tests kill -9 it.
// argv: <dist lease module URL> <connection string> <instance id> <renewMs> <leaseMs>
const [moduleUrl, url, id, renewMs, leaseMs] = process.argv.slice(2);
const { LeaderLease } = await import(moduleUrl);
const lease = new LeaderLease(url, id, { renewMs: Number(renewMs), leaseMs: Number(leaseMs) });
const epoch = await lease.campaign();
process.stdout.write(`leading ${epoch}\n`);
setInterval(() => undefined, 1 << 30);
