// Folds a session's steps (streamed, possibly millions) into the bounded digest a brief shows.
// Every text is redacted, then cut, as it arrives, so nothing unredacted is kept.

import type { SessionStep } from "../../agents/stores/types.js";
import { redactSecrets } from "../../kernel/secrets.js";

/** Characters kept of one step. */
const STEP_MAX_CHARS = 1200;
/** Steps shown under "Recent activity". */
const RECENT_STEPS = 30;
/** Commands shown under "Recent commands". */
const RECENT_COMMANDS = 10;
/** Changed files listed; more are summarised as a count. */
const MAX_FILES = 50;
/** Characters kept of one file path. */
const PATH_MAX_CHARS = 300;

export interface BriefDigest {
  firstPrompt?: SessionStep;
  latestPrompt?: SessionStep;
  lastReply?: SessionStep;
  filesChanged: string[];
  moreFiles: number;
  commands: SessionStep[];
  steps: SessionStep[];
  totalSteps: number;
}

function cut(text: string, max = STEP_MAX_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… [cut]` : text;
}

/** Redact first, then cut: a secret straddling the cut must not leave a readable half. */
function clean(step: SessionStep): SessionStep {
  const out: SessionStep = { ...step, text: cut(redactSecrets(step.text)) };
  if (step.path) out.path = cut(redactSecrets(step.path), PATH_MAX_CHARS);
  return out;
}

export class DigestBuilder {
  private readonly d: BriefDigest = { filesChanged: [], moreFiles: 0, commands: [], steps: [], totalSteps: 0 };
  private readonly files = new Set<string>();

  add = (raw: SessionStep): void => {
    if (!raw.text.trim() && !raw.path) return;
    const step = clean(raw);
    const d = this.d;
    d.totalSteps++;
    if (step.kind === "prompt") {
      d.firstPrompt ??= step;
      d.latestPrompt = step;
    } else if (step.kind === "reply") d.lastReply = step;
    else if (step.kind === "command") {
      d.commands.push(step);
      if (d.commands.length > RECENT_COMMANDS) d.commands.shift();
    } else if (step.kind === "file_change" && step.path && !this.files.has(step.path)) {
      this.files.add(step.path);
      if (d.filesChanged.length < MAX_FILES) d.filesChanged.push(step.path);
      else d.moreFiles++;
    }
    d.steps.push(step);
    if (d.steps.length > RECENT_STEPS) d.steps.shift();
  };

  result(): BriefDigest {
    return this.d;
  }
}
