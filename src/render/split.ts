// Splits markdown into chunks no longer than a platform's limit, on paragraph or line boundaries.
// A code fence cut in two is closed at the end of one chunk and reopened (same info string) at the
// start of the next, so every chunk renders on its own.

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;

export function splitMarkdown(text: string, limit: number): string[] {
  if (limit < 40) throw new Error(`split limit too small: ${limit}`);
  if (text.length <= limit) return [text];
  const lines = text.split("\n");
  const chunks: string[] = [];
  let current: string[] = [];
  let currentLen = 0;
  let openFence: string | undefined; // the fence line that opened the block we are inside
  let fenceAtChunkStart: string | undefined;

  const closeLen = (fence: string | undefined) => (fence ? fenceMarker(fence).length + 1 : 0);

  const flush = () => {
    if (current.length === 0) return;
    const body = current.join("\n");
    chunks.push(openFence ? `${body}\n${fenceMarker(openFence)}` : body);
    current = openFence ? [openFence] : [];
    currentLen = openFence ? openFence.length : 0;
    fenceAtChunkStart = openFence;
  };

  for (let line of lines) {
    // A single line longer than the limit is cut hard.
    while (line.length > limit - closeLen(openFence) - (openFence ? openFence.length + 1 : 0)) {
      const room = Math.max(20, limit - currentLen - 1 - closeLen(openFence));
      if (current.length > 0 && room < 20) {
        flush();
        continue;
      }
      current.push(line.slice(0, room));
      currentLen += room + 1;
      line = line.slice(room);
      flush();
    }
    const added = (current.length > 0 ? 1 : 0) + line.length;
    const fenceMatch = FENCE.exec(line);
    const closes = !!fenceMatch && !!openFence && sameFence(openFence, fenceMatch[2]) && fenceMatch[3].trim() === "";
    const nextFence = fenceMatch ? (openFence ? (closes ? undefined : openFence) : line) : openFence;
    if (currentLen + added + closeLen(nextFence) > limit && current.length > (fenceAtChunkStart ? 1 : 0)) {
      // Prefer to cut at the last blank line (a paragraph boundary) of the chunk when not in a fence.
      const blank = openFence ? -1 : current.lastIndexOf("");
      if (blank > 0) {
        const rest = current.slice(blank + 1);
        current = current.slice(0, blank);
        flush();
        current.push(...rest);
        currentLen = current.join("\n").length;
      } else flush();
    }
    currentLen += (current.length > 0 ? 1 : 0) + line.length;
    current.push(line);
    openFence = nextFence;
  }
  if (current.length > 0) {
    const body = current.join("\n");
    chunks.push(openFence ? `${body}\n${fenceMarker(openFence)}` : body);
  }
  return chunks.filter((c) => c.trim().length > 0);
}

function fenceMarker(fenceLine: string): string {
  return FENCE.exec(fenceLine)![2];
}

function sameFence(opening: string, marker: string): boolean {
  const open = fenceMarker(opening);
  return marker[0] === open[0] && marker.length >= open.length;
}
