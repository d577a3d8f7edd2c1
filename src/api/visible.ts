/**
 * Control characters a terminal or CI log would act on (ESC sequences, CR, backspace, bidi
 * overrides, line and paragraph separators), as visible escapes: text from a package can then
 * neither repaint a line nor fake one. A line feed stays (messages span lines); callers that
 * print lines indent the continuation lines so that none can pass for one of their own.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const visible = (text: string): string =>
  text.replace(CONTROL, (c) => (c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

/** Also a line feed, as `\n`: for one-line positions (a name, a file name, a table cell). */
export const visibleOneLine = (text: string): string => visible(text).replaceAll('\n', '\\n');
