// POSIX shell quoting: for commands shown to a person, and for the command line ssh hands to a
// remote machine's shell.

/** A word as a POSIX shell reads it: as is when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
