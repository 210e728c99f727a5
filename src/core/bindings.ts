// Routes bound to a project by the config: `bindings: [{match, workspace, agent?, profile?, allow?}]`. A new
// thread on a bound route starts in the binding's workspace with its agent; the first binding
// whose pattern matches the route wins. `*` in a pattern is any run of characters (`/` and `:`
// included, so `slack:T1/C2*` covers the channel's threads), `?` one character.
import type { HostChoice } from "../commands/context.js";
import type { BindingConfig } from "../config/features.js";
import { CommandError, ConfigError } from "../kernel/errors.js";
export { describeBinding } from "../commands/features.js";

export interface Binding {
  /** Position in the config list, for messages (`bindings[0]`). */
  index: number;
  match: string;
  workspace: string;
  host?: HostChoice;
  /** Who may talk in the bound channels (users or groups), besides being let in by access.allow or access.roles. */
  allow?: readonly string[];
}

export interface BindingHosts {
  isHostName(word: string): boolean;
  resolveHost(words: string[]): HostChoice;
}

export class Bindings {
  private readonly list: Array<Binding & { pattern: RegExp }>;

  constructor(config: BindingConfig[], hosts: BindingHosts) {
    this.list = config.map((b, index) => ({ index, match: b.match, workspace: b.workspace, host: hostOf(b, index, hosts), allow: b.allow, pattern: globToRegExp(b.match) }));
  }

  /** The binding of a route, or undefined when none matches. */
  forRoute(route: string): Binding | undefined {
    return this.list.find((b) => b.pattern.test(route));
  }

  get size(): number {
    return this.list.length;
  }
}

function hostOf(binding: BindingConfig, index: number, hosts: BindingHosts): HostChoice | undefined {
  const words = [binding.agent, binding.profile].filter((w): w is string => w !== undefined);
  if (words.length === 0) return undefined;
  try {
    return hosts.resolveHost(words);
  } catch (error) {
    const why = error instanceof CommandError ? error.userMessage : String(error);
    throw new ConfigError(`bindings[${index}]: ${why}`);
  }
}

function globToRegExp(glob: string): RegExp {
  const source = [...glob].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${source}$`);
}
