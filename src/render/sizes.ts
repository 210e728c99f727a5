// Sizes as the chat shows them.
const BYTES_PER_KB = 1024;
const BYTES_PER_MB = 1024 * 1024;

/** `3.2 MB`: how limits on files read. */
export function megabytes(bytes: number): string {
  return `${(bytes / BYTES_PER_MB).toFixed(1)} MB`;
}

/** `12 KB` below a megabyte (rounded up, never `0 KB`), else `3.2 MB`. */
export function formatSize(bytes: number): string {
  return bytes >= BYTES_PER_MB ? megabytes(bytes) : `${Math.ceil(bytes / BYTES_PER_KB)} KB`;
}
