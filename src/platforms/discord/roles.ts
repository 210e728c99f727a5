// `discord:role:<id>` in an access list: the people with that role in the server the message comes
// from. A guild message or interaction carries its member's roles, so no call is made for it; for
// a user known only by id (a schedule's maker) the roles are read from the server of the route's
// channel (GET member: no privileged intent needed). A DM is in no server: no roles there.
import { type REST, Routes } from "discord.js";
import type { PlatformUser } from "../contract.js";
import { DiscordCode, discordCode, toPlatformError } from "./errors.js";

const PREFIX = "discord:role:";

/** Whether `user` has the role a principal names where `channelId` is; false for any other principal. */
export async function hasRole(rest: REST, principal: string, user: PlatformUser, channelId: string): Promise<boolean> {
  if (!principal.startsWith(PREFIX)) return false;
  const roles = user.roles ?? (await memberRoles(rest, channelId, user.id.slice("discord:".length)));
  return roles.includes(principal.slice(PREFIX.length));
}

async function memberRoles(rest: REST, channelId: string, userId: string): Promise<readonly string[]> {
  try {
    const channel = (await rest.get(Routes.channel(channelId))) as { guild_id?: string };
    if (!channel.guild_id) return [];
    const member = (await rest.get(Routes.guildMember(channel.guild_id, userId))) as { roles?: string[] };
    return member.roles ?? [];
  } catch (error) {
    // Not (or no longer) in the server: no roles, which is an answer, not a failure.
    if (discordCode(error) === DiscordCode.UnknownMember) return [];
    throw toPlatformError(error, "look up a member's roles");
  }
}
