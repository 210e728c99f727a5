// Appends events as fast as it can and prints the id of each one once its append resolved
// (durable). The kill -9 test kills this process mid-burst.
import { JsonlEventStore } from "../../dist/threads/store.js";
import { makeEvent } from "../../dist/threads/events.js";

const store = new JsonlEventStore(process.argv[2]);
let n = 0;
for (;;) {
  const batch = Array.from({ length: 1 + (n % 5) }, () => makeEvent("th_burst", { type: "route_attached", route: `burst:${n++}`, pad: "x".repeat(n % 300) }));
  await Promise.all(batch.map((e) => store.append([e]).then(() => process.stdout.write(`${e.id}\n`))));
}
