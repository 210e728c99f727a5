// The demo agent's own session store: one JSONL file per session under
// <dataDir>/demo-agent/sessions/<id>.jsonl. Line 1 is metadata; then prompt / reply / tool lines.
// Being a real on-disk store is the point: load, resume and list work across processes, and the
// handoff readers read it like any other agent's store.
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type DemoLine =
  | { type: "meta"; sessionId: string; cwd: string; createdAt: string; title: string | null }
  | { type: "prompt"; text: string; at: string }
  | { type: "reply"; text: string; at: string }
  | { type: "tool"; title: string; status: "completed" | "failed"; at: string };

export function demoDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BATON_DATA_DIR || join(homedir(), ".baton");
}

export function demoSessionsDir(dataDir: string): string {
  return join(dataDir, "demo-agent", "sessions");
}

export class DemoSessionStore {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private file(id: string): string {
    if (!/^[A-Za-z0-9-]+$/.test(id)) throw new Error(`bad session id: ${id}`);
    return join(this.dir, `${id}.jsonl`);
  }

  exists(id: string): boolean {
    return existsSync(this.file(id));
  }

  create(id: string, cwd: string): void {
    const meta: DemoLine = { type: "meta", sessionId: id, cwd, createdAt: new Date().toISOString(), title: null };
    writeFileSync(this.file(id), `${JSON.stringify(meta)}\n`, { mode: 0o600, flag: "wx" });
  }

  append(id: string, line: DemoLine): void {
    appendFileSync(this.file(id), `${JSON.stringify(line)}\n`);
  }

  read(id: string): DemoLine[] {
    const out: DemoLine[] = [];
    for (const raw of readFileSync(this.file(id), "utf8").split("\n")) {
      if (!raw) continue;
      try {
        out.push(JSON.parse(raw) as DemoLine);
      } catch {
        // A torn last line after a crash: the rest of the session is still good.
      }
    }
    return out;
  }

  list(cwd?: string): Array<{ sessionId: string; cwd: string; title: string | null; updatedAt: string }> {
    const sessions = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".jsonl")) continue;
      const id = name.slice(0, -".jsonl".length);
      const lines = this.read(id);
      const meta = lines[0];
      if (meta?.type !== "meta") continue;
      if (cwd && meta.cwd !== cwd) continue;
      const firstPrompt = lines.find((l) => l.type === "prompt") as { text: string } | undefined;
      sessions.push({
        sessionId: id,
        cwd: meta.cwd,
        title: meta.title ?? (firstPrompt ? firstPrompt.text.slice(0, 80) : null),
        updatedAt: statSync(join(this.dir, name)).mtime.toISOString(),
      });
    }
    return sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}
