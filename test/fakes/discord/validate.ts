// The checks Discord makes on a message body and on application commands, answered with Discord's
// error shape: 400 `{code: 50035, message: "Invalid Form Body", errors: {<path>: {_errors: […]}}}`,
// or `{code: 50006, message: "Cannot send an empty message"}`.

export interface ApiError {
  status: number;
  body: { code: number; message: string; errors?: Record<string, unknown> };
}

const MAX_CONTENT_CHARS = 2000;
const MAX_ACTION_ROWS = 5;
const MAX_BUTTONS_PER_ROW = 5;
const MAX_CUSTOM_ID_CHARS = 100;
const MAX_BUTTON_LABEL_CHARS = 80;
/** Flags a bot may set when it creates a message (SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS); EPHEMERAL only in interaction responses. */
const CREATE_FLAGS = (1 << 2) | (1 << 12);
const EPHEMERAL = 1 << 6;

export function formError(path: string, code: string, message: string): ApiError {
  const errors: Record<string, unknown> = {};
  let node = errors;
  const parts = path.split(".");
  parts.forEach((part, index) => {
    const next: Record<string, unknown> = index === parts.length - 1 ? { _errors: [{ code, message }] } : {};
    node[part] = next;
    node = next;
  });
  return { status: 400, body: { code: 50035, message: "Invalid Form Body", errors } };
}

export function apiError(status: number, code: number, message: string): ApiError {
  return { status, body: { code, message } };
}

/** Checks a message create/edit body. `interaction`: an interaction response may be ephemeral. */
export function validateMessageBody(body: any, options: { create: boolean; interaction?: boolean; attachments?: number }): ApiError | undefined {
  if (body === null || typeof body !== "object") return formError("_root", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType");
  if (body.content !== undefined && body.content !== null) {
    if (typeof body.content !== "string") return formError("content", "BASE_TYPE_STRING", "Must be a string.");
    if ([...body.content].length > MAX_CONTENT_CHARS) return formError("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT_CHARS} or fewer in length.`);
  }
  if (body.flags !== undefined) {
    const allowed = CREATE_FLAGS | (options.interaction ? EPHEMERAL : 0);
    if ((Number(body.flags) & ~allowed) !== 0) return formError("flags", "MESSAGE_FLAGS_INVALID", "Invalid flags");
  }
  const componentsError = validateComponents(body.components);
  if (componentsError) return componentsError;
  if (options.create) {
    const hasContent = typeof body.content === "string" && body.content.trim() !== "";
    const hasComponents = Array.isArray(body.components) && body.components.length > 0;
    const hasEmbeds = Array.isArray(body.embeds) && body.embeds.length > 0;
    if (!hasContent && !hasComponents && !hasEmbeds && !options.attachments) return apiError(400, 50006, "Cannot send an empty message");
  }
  return undefined;
}

function validateComponents(components: unknown): ApiError | undefined {
  if (components === undefined || components === null) return undefined;
  if (!Array.isArray(components)) return formError("components", "BASE_TYPE_LIST", "Must be a list.");
  if (components.length > MAX_ACTION_ROWS) return formError("components", "BASE_TYPE_BAD_LENGTH", `Must be between 0 and ${MAX_ACTION_ROWS} in length.`);
  const customIds = new Set<string>();
  for (const [r, row] of components.entries()) {
    if (row?.type !== 1) return formError(`components.${r}.type`, "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).');
    const children = row.components;
    if (!Array.isArray(children) || children.length < 1 || children.length > MAX_BUTTONS_PER_ROW) {
      return formError(`components.${r}.components`, "BASE_TYPE_BAD_LENGTH", `Must be between 1 and ${MAX_BUTTONS_PER_ROW} in length.`);
    }
    for (const [c, button] of children.entries()) {
      const at = `components.${r}.components.${c}`;
      if (button?.type !== 2) return formError(`${at}.type`, "UNION_TYPE_CHOICES", "Only buttons are covered by the fake.");
      if (typeof button.label === "string" && button.label.length > MAX_BUTTON_LABEL_CHARS)
        return formError(`${at}.label`, "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_BUTTON_LABEL_CHARS} or fewer in length.`);
      if (![1, 2, 3, 4, 5].includes(button.style)) return formError(`${at}.style`, "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5}.");
      if (button.style === 5) {
        if (typeof button.url !== "string") return formError(`${at}.url`, "BASE_TYPE_REQUIRED", "This field is required");
        continue;
      }
      if (typeof button.custom_id !== "string" || button.custom_id.length < 1) return formError(`${at}.custom_id`, "BASE_TYPE_REQUIRED", "This field is required");
      if (button.custom_id.length > MAX_CUSTOM_ID_CHARS) return formError(`${at}.custom_id`, "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CUSTOM_ID_CHARS} or fewer in length.`);
      if (customIds.has(button.custom_id)) return formError(`${at}.custom_id`, "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated");
      customIds.add(button.custom_id);
    }
  }
  return undefined;
}

const COMMAND_NAME = /^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$/u;

/** Checks a bulk-overwrite body of chat-input commands (names, descriptions, options). */
export function validateCommands(commands: unknown): ApiError | undefined {
  if (!Array.isArray(commands)) return formError("_root", "BASE_TYPE_LIST", "Must be a list.");
  if (commands.length > 100) return formError("_root", "BASE_TYPE_BAD_LENGTH", "Must be between 0 and 100 in length.");
  const names = new Set<string>();
  for (const [i, command] of commands.entries()) {
    if (typeof command?.name !== "string" || !COMMAND_NAME.test(command.name)) return formError(`${i}.name`, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
    if (names.has(command.name)) return formError(`${i}.name`, "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique");
    names.add(command.name);
    if (typeof command.description !== "string" || command.description.length < 1 || command.description.length > 100)
      return formError(`${i}.description`, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
    const options = command.options ?? [];
    if (!Array.isArray(options) || options.length > 25) return formError(`${i}.options`, "BASE_TYPE_BAD_LENGTH", "Must be between 0 and 25 in length.");
    let optionalSeen = false;
    for (const [j, option] of options.entries()) {
      if (typeof option?.name !== "string" || !COMMAND_NAME.test(option.name)) return formError(`${i}.options.${j}.name`, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
      if (typeof option.description !== "string" || option.description.length < 1 || option.description.length > 100)
        return formError(`${i}.options.${j}.description`, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
      if (option.required && optionalSeen)
        return formError(`${i}.options.${j}.required`, "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options");
      if (!option.required) optionalSeen = true;
    }
  }
  return undefined;
}
