// `slack:group:S0DEVS` in an access list: the members of a Slack user group, from
// usergroups.users.list (bot scope usergroups:read). The core caches the answer and refuses when
// the call fails; a missing scope is named, so the log says what to add.
import { PlatformError } from "../../kernel/errors.js";
import type { SlackApi } from "./api.js";
import { slackErrorCode } from "./api.js";
import { USER_GROUPS_SCOPE } from "./scopes.js";

const PREFIX = "slack:group:";

/** Whether the Slack user `slackUserId` (U…) is in the user group a principal names; false for any other principal. */
export async function inUserGroup(api: SlackApi, principal: string, slackUserId: string): Promise<boolean> {
  if (!principal.startsWith(PREFIX)) return false;
  const usergroup = principal.slice(PREFIX.length);
  try {
    const result = await api.call("usergroups.users.list", { usergroup });
    return Array.isArray(result.users) && result.users.includes(slackUserId);
  } catch (error) {
    if (slackErrorCode(error) === "missing_scope") {
      throw new PlatformError(`Slack refused to list user group ${usergroup}: the app lacks the ${USER_GROUPS_SCOPE} scope (add it and reinstall the app).`, { reason: "refused", cause: error });
    }
    throw error;
  }
}
