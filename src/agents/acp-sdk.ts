// The ACP SDK (6 MB of heap, mostly its protocol schemas) loads with the first host, while that
// host's agent process boots, so an idle Baton does not carry it and the first answer does not wait for it.
export type AcpSdk = typeof import("@agentclientprotocol/sdk");

let loading: Promise<AcpSdk> | undefined;

export function loadAgentSdk(): Promise<AcpSdk> {
  return (loading ??= import("@agentclientprotocol/sdk"));
}
