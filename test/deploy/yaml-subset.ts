/**
 * A strict parser for the YAML subset the deployment files use (no YAML library is a dependency):
 * block mappings, block sequences of scalars, one-line flow sequences, plain / double-quoted /
 * single-quoted scalars, comments. Anything else (anchors, multi-line scalars, sequences of
 * mappings, tabs) is an error that names the line, so the compose file cannot drift outside what
 * the tests understand. Plain scalars resolve as YAML 1.2's core schema does for the forms used:
 * integers, true / false, null (`~`, empty); everything else, and every quoted scalar, is a string.
 */

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  number: number;
  indent: number;
  text: string;
}

export class YamlSubsetError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'YamlSubsetError';
  }
}

function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || raw[i - 1] === ' ')) return raw.slice(0, i);
  }
  return raw;
}

function toLines(source: string): Line[] {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, index) => {
    const number = index + 1;
    if (raw.includes('\t')) throw new YamlSubsetError(number, 'tab characters are not allowed');
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '') return;
    const indent = text.length - text.trimStart().length;
    lines.push({ number, indent, text: text.trimStart() });
  });
  return lines;
}

function parseScalar(text: string, line: number): string | number | boolean | null {
  const t = text.trim();
  if (t === '' || t === '~' || t === 'null') return null;
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2)
      throw new YamlSubsetError(line, 'unterminated double-quoted string');
    try {
      return JSON.parse(t) as string;
    } catch {
      throw new YamlSubsetError(line, `unsupported escape in ${t}`);
    }
  }
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2)
      throw new YamlSubsetError(line, 'unterminated single-quoted string');
    return t.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[&*!|>{]/.test(t)) throw new YamlSubsetError(line, `unsupported YAML construct: ${t}`);
  if (t.startsWith('[')) throw new YamlSubsetError(line, 'flow sequences only as whole values');
  if (/^[-+]?\d+$/.test(t)) return Number(t);
  if (/^(true|True|TRUE|false|False|FALSE)$/.test(t)) return t.toLowerCase() === 'true';
  if (/^(null|Null|NULL)$/.test(t)) return null;
  return t;
}

function splitFlow(inner: string, line: number): string[] {
  const items: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"') {
        current += inner[i + 1] ?? '';
        i++;
      } else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
      current += c;
    } else if (c === ',') {
      items.push(current);
      current = '';
    } else if (c === '[' || c === ']' || c === '{' || c === '}') {
      throw new YamlSubsetError(line, 'nested flow collections are not supported');
    } else current += c;
  }
  if (quote) throw new YamlSubsetError(line, 'unterminated string in flow sequence');
  if (current.trim() !== '' || items.length > 0) items.push(current);
  return items;
}

function parseValue(text: string, line: number): YamlValue {
  const t = text.trim();
  if (t.startsWith('[')) {
    if (!t.endsWith(']')) throw new YamlSubsetError(line, 'flow sequence must close on the same line');
    return splitFlow(t.slice(1, -1), line).map((item) => parseScalar(item, line));
  }
  return parseScalar(t, line);
}

/** Index of the `:` that ends a mapping key (outside quotes, followed by space or end), or -1. */
function keyColon(text: string): number {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ':' && (i + 1 === text.length || text[i + 1] === ' ')) return i;
  }
  return -1;
}

function parseBlock(lines: Line[], start: number, indent: number): [YamlValue, number] {
  const first = lines[start];
  if (!first) return [null, start];
  if (first.text === '-' || first.text.startsWith('- ')) {
    const items: YamlValue[] = [];
    let i = start;
    while (i < lines.length) {
      const l = lines[i] as Line;
      if (l.indent < indent) break;
      if (l.indent > indent) throw new YamlSubsetError(l.number, 'unexpected indentation');
      if (!(l.text === '-' || l.text.startsWith('- ')))
        throw new YamlSubsetError(l.number, 'expected a sequence item');
      const rest = l.text.slice(1).trim();
      if (rest === '' || keyColon(rest) !== -1)
        throw new YamlSubsetError(l.number, 'only scalar or flow sequence items are supported');
      items.push(parseValue(rest, l.number));
      i++;
    }
    return [items, i];
  }
  const map: { [key: string]: YamlValue } = {};
  let i = start;
  while (i < lines.length) {
    const l = lines[i] as Line;
    if (l.indent < indent) break;
    if (l.indent > indent) throw new YamlSubsetError(l.number, 'unexpected indentation');
    const colon = keyColon(l.text);
    if (colon === -1) throw new YamlSubsetError(l.number, `expected "key: value", got ${l.text}`);
    const rawKey = l.text.slice(0, colon).trim();
    const parsedKey = parseScalar(rawKey, l.number);
    if (parsedKey === null) throw new YamlSubsetError(l.number, 'empty key');
    const key = String(parsedKey);
    if (Object.hasOwn(map, key)) throw new YamlSubsetError(l.number, `duplicate key ${key}`);
    const rest = l.text.slice(colon + 1).trim();
    i++;
    if (rest !== '') {
      map[key] = parseValue(rest, l.number);
      continue;
    }
    const next = lines[i];
    // A block sequence may sit at the same indentation as its key (compose style allows both).
    if (next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- ')))) {
      const [value, after] = parseBlock(lines, i, next.indent);
      map[key] = value;
      i = after;
    } else map[key] = null;
  }
  return [map, i];
}

export function parseYamlSubset(source: string): YamlValue {
  const lines = toLines(source);
  if (lines.length === 0) return null;
  const first = lines[0] as Line;
  if (first.indent !== 0) throw new YamlSubsetError(first.number, 'document must start at column 0');
  const [value, end] = parseBlock(lines, 0, 0);
  const extra = lines[end];
  if (extra) throw new YamlSubsetError(extra.number, 'unexpected content');
  return value;
}
