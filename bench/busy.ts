// Inbound latency while agents' builds keep every core busy: what agents.nice is for. A few agents
// each run `demo:burn` (CPU-bound processes of their own, as a build or a test suite would be, at
// the agent's priority); probes then go to other chats' live agents, as in the inbound suite. The
// suite runs three times: as shipped (agents.nice: 10, 10 steps below Baton in the normal class),
// in Linux's idle scheduling class (agents.nice: idle) and with agents.nice: 0.
import { cpus } from "node:os";
import { sleep, until } from "./lib/baton.js";
import { telegramUser } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";
import { machineCpu, promptWrites, sendAtRate, withTelegramBaton } from "./lib/probes.js";

export interface BusyScale {
  probeChats: number;
  /** Agents that burn, one CPU-bound process each: one per core keeps every core busy, twice over. */
  burningAgents: number;
  samples: number;
  perSecond: number;
  /** Below this share of the machine's CPU while the probes ran, the load did not happen: the suite fails. */
  minMachineBusyPercent: number;
}

export const BUSY_FULL: BusyScale = { probeChats: 20, burningAgents: 2 * cpus().length, samples: 600, perSecond: 100, minMachineBusyPercent: 95 };
export const BUSY_TINY: BusyScale = { probeChats: 2, burningAgents: 1, samples: 20, perSecond: 20, minMachineBusyPercent: 0 };

/** Agents start (and warm up) before the burn; this is what the burn must outlast besides the probes. */
const BURN_MARGIN_S = 30;
/** Starting agents on a loaded 2-core machine is slow. */
const PHASE_TIMEOUT_MS = 300_000;

export async function benchBusy(scale: BusyScale): Promise<Figure[]> {
  const shipped = await measure(scale, undefined);
  const idle = await measure(scale, "idle");
  const same = await measure(scale, 0);
  const load = `${scale.burningAgents} agents each keeping a CPU-bound process busy (demo:burn, at the agent's priority), probes at ${scale.perSecond}/s to ${scale.probeChats} other chats`;
  return [
    figure(
      {
        id: "busy-inbound",
        label: "inbound while agents' builds keep every core busy (agents.nice: 10, as shipped)",
        unit: "ms",
        definition: `update leaves the Telegram fake → Baton writes the session/prompt line into the agent's stdin; ${load}`,
      },
      shipped.inbound,
    ),
    figure(
      {
        id: "busy-inbound-idle",
        label: "… the same with agents.nice: idle (Linux's idle scheduling class)",
        unit: "ms",
        definition: "as above, the agents and their processes in the idle class",
      },
      idle.inbound,
    ),
    figure(
      { id: "busy-inbound-nice0", label: "… the same with agents.nice: 0 (agents at Baton's priority)", unit: "ms", definition: `as above, the agents and their processes at Baton's own priority` },
      same.inbound,
    ),
    figure(
      {
        id: "busy-to-agent",
        label: "… update at the wire → the agent read the line (agents.nice: 10)",
        unit: "ms",
        definition: `update leaves the Telegram fake → the demo agent's stdin 'data' event; ${load}`,
      },
      shipped.toAgent,
    ),
    figure({ id: "busy-to-agent-idle", label: "… the same with agents.nice: idle", unit: "ms", definition: "as above, the agents and their processes in the idle class" }, idle.toAgent),
    figure({ id: "busy-to-agent-nice0", label: "… the same with agents.nice: 0", unit: "ms", definition: "as above, the agents and their processes at Baton's own priority" }, same.toAgent),
  ];
}

async function measure(scale: BusyScale, agentsNice: number | "idle" | undefined): Promise<{ inbound: number[]; toAgent: number[] }> {
  const config = { maxLiveHosts: scale.probeChats + scale.burningAgents + 2, agentsNice };
  // Stopping Baton at the end stops its agents; their burning processes see them gone and stop too.
  return withTelegramBaton(
    config,
    async () => undefined,
    async ({ tg, baton, textCalls, timings, delivered }) => {
      const chats = Array.from({ length: scale.probeChats }, (_, i) => telegramUser(tg, i));
      for (const chat of chats) chat.send("warm up");
      await until(() => chats.every((c) => textCalls.to(c.chatId).length > 0), "a first answer in every probe chat", PHASE_TIMEOUT_MS, 50);
      const burnSeconds = Math.ceil(scale.samples / scale.perSecond) + BURN_MARGIN_S;
      const burning = Array.from({ length: scale.burningAgents }, (_, i) => telegramUser(tg, 20_000 + i));
      for (const chat of burning) chat.send(`demo:burn ${burnSeconds}`);
      await until(() => burning.every((c) => textCalls.to(c.chatId).some((call) => String(call.params.text ?? "").includes("CPU-bound"))), "every burning agent at work", PHASE_TIMEOUT_MS, 50);
      await sleep(1_000);
      const before = machineCpu();
      const probes = await sendAtRate(scale.samples, scale.perSecond, (i) => {
        const chat = chats[i % chats.length];
        return { chatId: chat.chatId, id: `busy-${i}`, messageId: chat.send(`demo:quiet busy-${i}`).message_id };
      });
      const machineBusy = machineCpu().busySince(before);
      if (machineBusy < scale.minMachineBusyPercent) throw new Error(`bench: the burning agents kept the machine only ${machineBusy.toFixed(0)} % busy`);
      await until(() => timings.refresh() && probes.every((p) => timings.promptIn.has(p.id)), "every probe at an agent's stdin", PHASE_TIMEOUT_MS, 20);
      const written = await promptWrites(baton);
      return {
        inbound: probes.map((p) => written(p) - delivered(p)),
        toAgent: probes.map((p) => timings.promptIn.get(p.id)! - delivered(p)),
      };
    },
  );
}
