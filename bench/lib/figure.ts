// One benchmark figure: what it measures (from where to where, under what load), its median and
// tail over the samples, and its target. `npm run bench` prints one line per figure.

export interface Figure {
  /** Stable key: the bench's own test looks figures up by it. */
  id: string;
  label: string;
  /** What is timed or weighed, from where to where, under what load. */
  definition: string;
  unit: "ms" | "MB" | "s" | "%" | "KB" | "";
  /** How many samples the median and tail are taken over. */
  n: number;
  median: number;
  /** p99 where there are enough samples for one (≥ 100), else the largest sample. */
  tail: number;
  tailKind: "p99" | "max";
  target?: string;
  ok?: boolean;
  /** A guard against regressions, not a goal: the run fails when it is missed. */
  guard?: boolean;
}

/** Median and tail of samples; throws when there are none, so a broken probe never reads as 0. */
function summarize(samples: number[], what: string): Pick<Figure, "n" | "median" | "tail" | "tailKind"> {
  const valid = samples.filter((s) => Number.isFinite(s));
  if (valid.length === 0) throw new Error(`bench: no samples for ${what}`);
  if (valid.length < samples.length) throw new Error(`bench: ${samples.length - valid.length} of ${samples.length} samples for ${what} are not numbers`);
  const sorted = [...valid].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const tailKind = sorted.length >= 100 ? "p99" : "max";
  return { n: sorted.length, median: at(0.5), tail: tailKind === "p99" ? at(0.99) : sorted[sorted.length - 1], tailKind };
}

/** A figure from samples, judged against `limit` on its median or its tail. */
export function figure(
  base: Omit<Figure, "n" | "median" | "tail" | "tailKind" | "ok" | "target" | "guard">,
  samples: number[],
  target?: { on: "median" | "tail"; below: number; text: string; guard?: boolean },
): Figure {
  const summary = summarize(samples, base.id);
  if (!target) return { ...base, ...summary };
  const value = target.on === "median" ? summary.median : summary.tail;
  return { ...base, ...summary, target: target.text, ok: value < target.below, ...(target.guard ? { guard: true } : {}) };
}

function num(value: number): string {
  const abs = Math.abs(value);
  const text = abs >= 100 ? Math.round(value).toLocaleString("en") : abs >= 10 ? value.toFixed(1) : value.toFixed(2);
  return text;
}

export function formatFigure(f: Figure): string {
  const mark = f.ok === undefined ? "·" : f.ok ? "✓" : "✗";
  const unit = f.unit ? ` ${f.unit}` : "";
  const values = f.n === 1 ? `${num(f.median)}${unit}` : `median ${num(f.median)}${unit}, ${f.tailKind} ${num(f.tail)}${unit} (n=${f.n.toLocaleString("en")})`;
  return `${mark} ${f.label}: ${values}${f.target ? `; ${f.guard ? "guard" : "target"} ${f.target}` : ""} — ${f.definition}`;
}
