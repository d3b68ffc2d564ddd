/**
 * What a link check needs from Markdown: the link targets of a file (outside code), and the
 * anchors its headings get on GitHub.
 *
 * @module
 */

/** A link target found in a Markdown file. */
export interface MarkdownLink {
  /** The target as written, e.g. `../docs/spec.md#42-write-endpoints`. */
  readonly target: string;
  /** Its 1-based line. */
  readonly line: number;
}

/** A heading, with the anchor GitHub gives it. */
export interface Heading {
  /** The heading's text, without the `#` marks. */
  readonly text: string;
  /** Its anchor, e.g. `42-write-endpoints`. */
  readonly anchor: string;
}

/**
 * Blanks out what is code, not prose: fenced blocks, inline code spans and HTML comments. Line
 * breaks are kept, so line numbers stay right.
 *
 * @param markdown The file's text.
 * @returns The text with code replaced by spaces.
 */
export function withoutCode(markdown: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  const lines = markdown.split('\n');
  let fence: string | undefined;
  const kept = lines.map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return blank(line);
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return blank(line);
    }
    return line;
  });
  return kept
    .join('\n')
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/(`+)[\s\S]*?\1/g, blank);
}

/**
 * The link targets of a Markdown file: inline links and images `[text](target)`, reference
 * definitions `[id]: target`, and `href`/`src` attributes of HTML; none inside code.
 *
 * @param markdown The file's text.
 * @returns The targets, in order.
 */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const prose = withoutCode(markdown);
  const links: MarkdownLink[] = [];
  const lineOf = (index: number) => prose.slice(0, index).split('\n').length;
  const patterns = [
    /\]\(\s*<([^>\n]*)>[^)]*\)/g,
    /\]\(\s*([^)\s<][^)\s]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    /^\s{0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm,
    /\s(?:href|src)\s*=\s*"([^"]*)"/g,
  ];
  for (const pattern of patterns) {
    for (const match of prose.matchAll(pattern)) links.push({ target: match[1]!, line: lineOf(match.index) });
  }
  return links.sort((a, b) => a.line - b.line);
}

/**
 * The anchor GitHub gives a heading (github-slugger): lower case, punctuation removed, spaces as
 * `-`. Markdown marks and HTML tags go first; links keep their text.
 *
 * @param text The heading's text.
 * @returns The anchor, before duplicates are numbered.
 */
export function slug(text: string): string {
  // Inside a code span `<text>` is text, not a tag: strip tags only between code spans.
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/<[^>]+>/g, '')))
    .join('')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * The headings of a Markdown file (ATX `#` and setext `===`/`---`, outside code) with their
 * anchors, numbered as GitHub numbers duplicates (`-1`, `-2`).
 *
 * @param markdown The file's text.
 * @returns The headings, in order.
 */
export function headings(markdown: string): Heading[] {
  const lines = withoutCode(markdown).split('\n');
  const raw = markdown.split('\n');
  const texts: string[] = [];
  for (const [index, line] of lines.entries()) {
    const atx = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) {
      // Code spans were blanked for the search; the anchor is made from the heading as written.
      texts.push(/^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw[index]!)![1]!);
      continue;
    }
    const next = lines[index + 1];
    if (
      next !== undefined &&
      line.trim() !== '' &&
      /^\s{0,3}(=+|-+)\s*$/.test(next) &&
      !/^\s*[-*+>|]/.test(line)
    ) {
      texts.push(raw[index]!.trim());
    }
  }
  const seen = new Map<string, number>();
  return texts.map((text) => {
    const base = slug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return { text, anchor: count === 0 ? base : `${base}-${count}` };
  });
}

/**
 * Every anchor a link into the file may use: its headings', and `id`/`name` attributes of HTML.
 *
 * @param markdown The file's text.
 * @returns The anchors.
 */
export function anchors(markdown: string): Set<string> {
  const found = new Set(headings(markdown).map((heading) => heading.anchor));
  for (const match of withoutCode(markdown).matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*"([^"]+)"/g)) {
    found.add(match[1]!);
  }
  return found;
}
