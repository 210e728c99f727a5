// The demo agent's permission requests: one as a real agent would ask it, one titled with the bare
// command as Codex does, two at once, and one that names a session other than its own (a
// misbehaving agent Baton must not let through).
import * as acp from "@agentclientprotocol/sdk";

type Client = acp.AgentContext;

const OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

/** Asks to run `command` (titled "Run `command`" unless `title` says); resolves with the chosen option id, or "cancelled". */
export async function askPermission(client: Client, sessionId: string, toolCallId: string, command: string, askingFor = sessionId, title = `Run \`${command}\``): Promise<string> {
  const toolCall = { toolCallId, title, kind: "execute" as const, status: "pending" as const, rawInput: { command } };
  await client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: "tool_call", ...toolCall } });
  const answer = (await client.request(acp.methods.client.session.requestPermission, { sessionId: askingFor, toolCall, options: OPTIONS })) as acp.RequestPermissionResponse;
  const chosen = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
  await client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: "tool_call_update", toolCallId, status: chosen.startsWith("allow") ? "completed" : "failed" } });
  return chosen;
}
