/**
 * Registry text (descriptions, reasons, explanations, names) reaches the operator's terminal through
 * the CLI. A control character in it could move the cursor, rewrite earlier lines, set the window
 * title or hide text, so everything printed from a status or an outcome goes through here.
 */

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The text without control characters; newlines and tabs stay. */
export function printable(text: string): string {
  return text.replace(CONTROL, '');
}

/** One value on one line: control characters removed and line breaks made spaces. */
export function oneLine(value: unknown): string {
  return printable(String(value).replace(/\r\n|[\r\n\u2028\u2029]/g, ' '));
}
