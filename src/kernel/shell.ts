// Showing a command to a person who will paste it into a shell (never executed by Baton).

/** A word as a POSIX shell reads it: as is when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
