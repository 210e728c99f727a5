// Discord interactions: slash commands and button presses must be acknowledged within 3 s, and
// what follows goes through the interaction's webhook (valid 15 min). A slash command is deferred
// at once as a reply only its user sees ("Baton is thinking…"); the core's first notice to that
// route (the command's answer, or a stranger's refusal) fills it in by editing it. A button press
// is acknowledged without changing the message; the core edits the message itself when it takes
// the answer, and a refusal goes to the presser alone as an ephemeral follow-up.
import { Routes, type REST } from "discord.js";
import type { MessageKind } from "../contract.js";
import type { DiscordMessageBody } from "./render.js";

/** Interaction callback types and the ephemeral flag. */
const DEFERRED_CHANNEL_MESSAGE = 5;
const DEFERRED_UPDATE_MESSAGE = 6;
const EPHEMERAL = 1 << 6;
/** An interaction's token works this long after the interaction. */
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** A deferred reply nothing filled in (the answer went elsewhere) is removed after this long. */
const UNANSWERED_DEFERRAL_MS = 30_000;

interface Deferred {
  token: string;
  userId: string;
  at: number;
  timer: NodeJS.Timeout;
}

/** The answer kinds that fill in a deferred command reply; the agent's own output never does. */
const ANSWER_KINDS = new Set<MessageKind | undefined>([undefined, "notice", "error"]);

export class InteractionDesk {
  /** Deferred command replies waiting for their answer, by route. */
  private readonly deferred = new Map<string, Deferred>();
  /** Recent button presses by route and user: a refusal goes to the presser through them. */
  private readonly presses = new Map<string, { token: string; at: number }>();
  /** Command replies filled in by an answer, by message id: editing them goes through their webhook. */
  private readonly answered = new Map<string, { token: string; at: number }>();

  constructor(
    private readonly rest: REST,
    private readonly applicationId: () => string,
    private readonly onError: (error: unknown, what: string) => void,
    private readonly unansweredMs = UNANSWERED_DEFERRAL_MS,
  ) {}

  /** Acknowledges a slash command with a deferred ephemeral reply. Throws what Discord answered. */
  async deferCommand(id: string, token: string, route: string, userId: string): Promise<void> {
    await this.rest.post(Routes.interactionCallback(id, token), { body: { type: DEFERRED_CHANNEL_MESSAGE, data: { flags: EPHEMERAL } }, auth: false });
    this.forget(route);
    const timer = setTimeout(() => this.dropUnanswered(route, token), this.unansweredMs);
    timer.unref();
    this.deferred.set(route, { token, userId, at: Date.now(), timer });
  }

  /** Acknowledges a button press without touching its message. Throws what Discord answered. */
  async acknowledgePress(id: string, token: string, route: string, userId: string): Promise<void> {
    await this.rest.post(Routes.interactionCallback(id, token), { body: { type: DEFERRED_UPDATE_MESSAGE }, auth: false });
    this.sweep();
    this.presses.set(`${route} ${userId}`, { token, at: Date.now() });
  }

  /** Fills in the route's deferred command reply with a notice; undefined when there is none to fill. */
  async answer(route: string, kind: MessageKind | undefined, body: DiscordMessageBody): Promise<{ id: string } | undefined> {
    if (!ANSWER_KINDS.has(kind)) return undefined;
    const pending = this.take(route);
    if (!pending) return undefined;
    const message = await this.editOriginal(pending.token, body);
    this.answered.set(message.id, { token: pending.token, at: pending.at });
    return message;
  }

  /** Edits a command reply this desk filled in; false when the message is not one (or its token expired). */
  async editAnswer(messageId: string, body: DiscordMessageBody): Promise<boolean> {
    const answer = this.answered.get(messageId);
    if (!answer || !this.alive(answer.at)) return false;
    await this.editOriginal(answer.token, body);
    return true;
  }

  /** Tells one user something only they see, through their live interaction on the route. */
  async tellPrivately(route: string, userId: string, body: DiscordMessageBody): Promise<boolean> {
    const pending = this.deferred.get(route);
    if (pending?.userId === userId && this.alive(pending.at)) {
      this.take(route);
      await this.editOriginal(pending.token, body);
      return true;
    }
    const press = this.presses.get(`${route} ${userId}`);
    if (press && this.alive(press.at)) {
      await this.rest.post(Routes.webhook(this.applicationId(), press.token), { body: { ...body, flags: body.flags | EPHEMERAL }, auth: false });
      return true;
    }
    return false;
  }

  close(): void {
    for (const pending of this.deferred.values()) clearTimeout(pending.timer);
    this.deferred.clear();
    this.presses.clear();
    this.answered.clear();
  }

  private async editOriginal(token: string, body: DiscordMessageBody): Promise<{ id: string }> {
    const message = (await this.rest.patch(Routes.webhookMessage(this.applicationId(), token, "@original"), {
      body: { content: body.content, components: body.components, allowed_mentions: body.allowed_mentions },
      auth: false,
    })) as { id: string };
    return { id: message.id };
  }

  private take(route: string): Deferred | undefined {
    const pending = this.deferred.get(route);
    if (!pending) return undefined;
    clearTimeout(pending.timer);
    this.deferred.delete(route);
    return this.alive(pending.at) ? pending : undefined;
  }

  private forget(route: string): void {
    const old = this.take(route);
    if (old) this.dropUnanswered(route, old.token);
    this.sweep();
  }

  /** Forgets presses and answers whose tokens have expired. */
  private sweep(): void {
    for (const map of [this.presses, this.answered]) for (const [key, entry] of map) if (!this.alive(entry.at)) map.delete(key);
  }

  private dropUnanswered(route: string, token: string): void {
    if (this.deferred.get(route)?.token === token) this.deferred.delete(route);
    this.rest.delete(Routes.webhookMessage(this.applicationId(), token, "@original"), { auth: false }).catch((error: unknown) => this.onError(error, "remove an unanswered command reply"));
  }

  private alive(at: number): boolean {
    return Date.now() - at < TOKEN_LIFETIME_MS;
  }
}
