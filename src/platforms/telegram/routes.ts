// Route keys for Telegram: `<instance>:<chat_id>` for a chat, `<instance>:<chat_id>:<thread_id>` for
// a forum topic. Chat ids of groups are negative (`-1001234567890`), so the separator is `:` and
// the sign stays part of the number.

export interface TelegramRoute {
  chatId: number;
  /** `message_thread_id` of a forum topic; absent for the chat itself (and the General topic). */
  threadId?: number;
}

const CHAT_ID_PATTERN = /^-?\d{1,20}$/;
const THREAD_ID_PATTERN = /^\d{1,20}$/;

export function formatTelegramRoute(instance: string, chatId: number, threadId?: number): string {
  return threadId === undefined ? `${instance}:${chatId}` : `${instance}:${chatId}:${threadId}`;
}

/** Parses a route of this instance; returns undefined for a route that is not one of ours or is malformed. */
export function parseTelegramRoute(route: string, instance: string): TelegramRoute | undefined {
  const prefix = `${instance}:`;
  if (!route.startsWith(prefix)) return undefined;
  const parts = route.slice(prefix.length).split(":");
  if (parts.length < 1 || parts.length > 2) return undefined;
  const [chatPart, threadPart] = parts;
  if (!CHAT_ID_PATTERN.test(chatPart)) return undefined;
  const chatId = Number(chatPart);
  if (!Number.isSafeInteger(chatId)) return undefined;
  if (threadPart === undefined) return { chatId };
  if (!THREAD_ID_PATTERN.test(threadPart)) return undefined;
  const threadId = Number(threadPart);
  if (!Number.isSafeInteger(threadId) || threadId <= 0) return undefined;
  return { chatId, threadId };
}

/** The route of a chat as a whole, whatever topic a message is in: `telegram:-100`. */
export function chatLevelRoute(instance: string, chatId: number): string {
  return formatTelegramRoute(instance, chatId);
}

/** Telegram gives groups, supergroups and channels negative ids; private chats are positive. */
export function isGroupChatId(chatId: number): boolean {
  return chatId < 0;
}

/** Platform user ids carry the platform *kind*, not the instance name, so access lists stay portable. */
export function telegramUserId(userId: number): string {
  return `telegram:${userId}`;
}
