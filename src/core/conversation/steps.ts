// The steps of every inbound message, in order: error boundary → addressed? → access → command or
// prompt. Each step may answer and stop, or pass the message on (`next`).
import { BatonError, userMessageOf } from "../../kernel/errors.js";
import { redactSecrets } from "../../kernel/secrets.js";
import type { PlatformLogger } from "../../platforms/contract.js";
import type { ChatContext } from "../../commands/context.js";
import { findCommand } from "../../commands/index.js";
import { compose, type Middleware } from "./compose.js";
import { promptStep } from "./prompt.js";
import type { Roles } from "./roles.js";
import type { AuditTrail } from "../audit.js";

export interface StepDeps {
  /** The sender may use the bot: listed in access.allow, or authenticated by the platform instance itself. */
  isAllowed(message: ChatContext["message"]): boolean;
  /** True when a stranger should get the refusal now (rate-limited per user). */
  shouldRefuse(userId: string): boolean;
  roles: Roles;
  audit: AuditTrail;
  log: PlatformLogger;
}

/** Commands a stranger may use. */
const PUBLIC_COMMANDS = new Set(["help"]);

export function conversationSteps(deps: StepDeps): (ctx: ChatContext) => Promise<void> {
  return compose([errorBoundary(deps.log), addressedOnly, access(deps), commandStep(deps.roles), promptStep]);
}

function errorBoundary(log: PlatformLogger): Middleware<ChatContext> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof BatonError)) log.error({ route: ctx.message.route, err: error }, "message handling failed");
      // Error texts can quote what the user typed (an id, a path): scrubbed like every other output.
      await ctx.reply(`⚠️ ${redactSecrets(userMessageOf(error))}`).catch(() => undefined);
    }
  };
}

/** Unaddressed group chatter never reaches anything, not even a refusal. */
const addressedOnly: Middleware<ChatContext> = async (ctx, next) => {
  if (ctx.addressed) await next();
};

function access(deps: StepDeps): Middleware<ChatContext> {
  return async (ctx, next) => {
    const { user, route } = ctx.message;
    // The platform's groups the access lists name are looked up (or found cached) before any check.
    await deps.roles.prepare(user, route);
    if (deps.isAllowed(ctx.message)) return next();
    if (ctx.parsed.kind === "command" && PUBLIC_COMMANDS.has(ctx.parsed.name)) return next();
    // Recorded as often as answered (once per access.refusal_interval): a stranger's flood must not fill the log.
    if (deps.shouldRefuse(user.id)) {
      deps.audit.note({ action: "access", outcome: "refused", ...deps.audit.who(user), route, detail: ctx.parsed.kind === "command" ? `/${ctx.parsed.name}` : "a message" });
      await ctx.reply(deps.roles.refusal(user.id, route), { onlyToSender: true });
    }
  };
}

/** A command runs when known; one access.commands makes admin-only is refused whole to others. */
function commandStep(roles: Roles): Middleware<ChatContext> {
  return async (ctx, next) => {
    if (ctx.parsed.kind !== "command") return next();
    const spec = findCommand(ctx.parsed.name);
    if (!spec) {
      await ctx.reply(`Unknown command: /${ctx.parsed.name} — try /help`);
      return;
    }
    if (roles.configured(spec.name) === "admin") ctx.access.require(spec.name, `/${spec.name}`);
    await spec.run(ctx, [...ctx.parsed.args]);
  };
}
