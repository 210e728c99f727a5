// Where every platform's messages enter the core, before anything reads them: a redelivered event
// is dropped (one bounded memory of event ids for all platforms), and a route's messages go on in
// the order they arrived, one at a time, facts an adapter was still looking up awaited in their
// place in that line. Adapters translate; ordering and de-duplication are done here once.
import { BoundedSet, KeyedQueue } from "../../kernel/collections.js";
import type { InboundMessage, PlatformLogger } from "../../platforms/contract.js";

/** Event ids remembered to drop redeliveries (Slack resends unacknowledged events after a reconnect). */
const REMEMBERED_EVENTS = 20_000;

export class Intake {
  private readonly seen = new BoundedSet(REMEMBERED_EVENTS);
  private readonly lines = new KeyedQueue();

  constructor(private readonly log: PlatformLogger) {}

  /** True the first time a platform instance hands over this event id (and always when it has none). */
  firstDelivery(route: string, eventId: string | undefined): boolean {
    if (eventId === undefined) return true;
    const fresh = this.seen.addIfNew(`${route.slice(0, route.indexOf(":"))}\u0000${eventId}`);
    if (!fresh) this.log.debug({ route, event: eventId }, "dropped a redelivered event");
    return fresh;
  }

  /** Runs `handle` with the settled message in its route's line; a redelivery is dropped at once. */
  run(message: InboundMessage, handle: (message: InboundMessage) => Promise<void>): Promise<void> {
    if (!this.firstDelivery(message.route, message.eventId)) return Promise.resolve();
    // Its failure is handled when its turn in the line comes (settle), not reported as unhandled before.
    message.lookup?.catch(() => undefined);
    return this.lines.run(message.route, async () => {
      const settled = await this.settle(message);
      if (settled) await handle(settled);
    });
  }

  /** The message with its looked-up facts in place; undefined when the adapter dropped it or the lookup failed. */
  private async settle(message: InboundMessage): Promise<InboundMessage | undefined> {
    if (!message.lookup) return message;
    const { lookup, ...rest } = message;
    try {
      const found = await lookup;
      return found === null ? undefined : { ...rest, ...found };
    } catch (error) {
      this.log.error({ route: message.route, err: error }, "a platform could not finish looking up a message; it is dropped");
      return undefined;
    }
  }
}
