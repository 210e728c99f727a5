// Turns cut off by a crash. A clean stop ends every running turn and tells its chats (restart.ts);
// a `kill -9`, an OOM kill or a power cut tells nobody, and the answer would stay half-written
// with no word. So the threads with a running turn are kept in a small file in the data dir, and
// the next start marks each of them in its chats. The file is rewritten off the hot path
// (coalesced, atomic): a crash in the few milliseconds before a write misses one mark, never
// invents one.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PlatformLogger } from "../platforms/contract.js";

const CUT_OFF_NOTICE = "⚠️ Baton restarted; this answer was cut off.";
const MOVED_NOTICE = "⚠️ Baton moved to another machine; the last turn was cut off.";

/**
 * Where the running turns are kept instead of the data dir's file, when several instances share
 * state (store.url): the next leader, on another machine, reads what the last one left.
 */
export interface RunningTurnsStore {
  /** What the last run left: its threads, and whether that run was another instance. */
  leftOver: { threads: string[]; otherInstance: boolean };
  save(threads: string[]): Promise<void>;
}
const FILE_NAME = "running-turns.json";
const FILE_MODE = 0o600;

export class CutTurns {
  /** Per thread, its turns not yet delivered whole (a new one may start while the last one's end is on its way). */
  private readonly running = new Map<string, number>();
  private readonly path: string;
  private writing?: Promise<void>;
  private again = false;

  constructor(
    dataDir: string,
    private readonly log: PlatformLogger,
    private readonly store?: RunningTurnsStore,
  ) {
    this.path = join(dataDir, FILE_NAME);
  }

  /** The threads whose turns were running when the last run ended without a clean stop, with the notice for their chats. */
  takeLeftOver(): { threads: string[]; notice: string } {
    if (this.store) {
      const { threads, otherInstance } = this.store.leftOver;
      this.save();
      return { threads, notice: otherInstance ? MOVED_NOTICE : CUT_OFF_NOTICE };
    }
    return { threads: this.takeLeftOverFile(), notice: CUT_OFF_NOTICE };
  }

  private takeLeftOverFile(): string[] {
    let ids: string[] = [];
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, "utf8"));
      if (Array.isArray(parsed)) ids = parsed.filter((id): id is string => typeof id === "string");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.log.warn({ err: error }, "could not read which turns were running before the restart");
    }
    rmSync(this.path, { force: true });
    return ids;
  }

  started(threadId: string): void {
    const turns = this.running.get(threadId) ?? 0;
    this.running.set(threadId, turns + 1);
    if (turns > 0) return;
    this.save();
  }

  ended(threadId: string): void {
    const turns = this.running.get(threadId);
    if (turns === undefined) return;
    if (turns > 1) return void this.running.set(threadId, turns - 1);
    this.running.delete(threadId);
    this.save();
  }

  /** A clean stop: the chats were told what happened to their turns, so nothing is left to mark. */
  async closeCleanly(): Promise<void> {
    this.running.clear();
    this.again = false;
    await this.writing;
    if (this.store) return this.store.save([]).catch((error: unknown) => this.log.warn({ err: error }, "could not record that no turn is running"));
    try {
      writeFileSync(`${this.path}.tmp`, "[]", { mode: FILE_MODE });
      renameSync(`${this.path}.tmp`, this.path);
    } catch (error) {
      this.log.warn({ err: error }, "could not record that no turn is running");
    }
  }

  /** One write at a time; changes made while one runs are written by the next. */
  private save(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    const text = JSON.stringify([...this.running.keys()]);
    const temporary = `${this.path}.tmp`;
    const write = this.store ? this.store.save([...this.running.keys()]) : writeFile(temporary, text, { mode: FILE_MODE }).then(() => rename(temporary, this.path));
    this.writing = write
      .catch((error: unknown) => this.log.warn({ err: error }, "could not record which turns are running"))
      .finally(() => {
        this.writing = undefined;
        if (this.again) {
          this.again = false;
          this.save();
        }
      });
  }
}
