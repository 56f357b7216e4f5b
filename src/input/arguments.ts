/**
 * Splits one-line command arguments on whitespace, keeping a volume written with space-separated
 * thousands ("65 000", "1 500 000") as one argument: a group of 1–3 digits followed by groups of
 * exactly three digits. Anything else stays as typed, so garbage such as "65 00" is still a
 * separate argument that the caller rejects by name.
 */
export function splitArguments(text: string): string[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const joined: string[] = [];
  for (let index = 0; index < tokens.length; index++) {
    let token = tokens[index]!;
    if (/^\d{1,3}$/.test(token)) {
      while (index + 1 < tokens.length && /^\d{3}$/.test(tokens[index + 1]!)) {
        token += ` ${tokens[index + 1]!}`;
        index += 1;
      }
    }
    joined.push(token);
  }
  return joined;
}
